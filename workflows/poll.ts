import { ApplicationFailure, sleep } from '@temporalio/workflow';
import type { WaitRecord } from '../src/domain/waits';
import { workflowNow } from './clock';

export interface PollOptions {
  /** What is awaited, for the record and the error. */
  what: string;
  intervalMs: number;
  timeoutMs: number;
  /**
   * Check again this soon first, doubling up to `intervalMs`: for conditions that usually hold within
   * moments (a new VM visible cluster-wide in ~300 ms), so the wait is not a whole interval.
   */
  firstIntervalMs?: number;
}

/**
 * Waits for a condition that only an activity can observe, checking it on durable timers (no fixed
 * pause, no busy activity). Returns how long it took; throws if the deadline passes.
 */
export async function pollUntil(check: () => Promise<boolean>, options: PollOptions): Promise<WaitRecord> {
  const started = workflowNow();
  let interval = Math.min(options.firstIntervalMs ?? options.intervalMs, options.intervalMs);
  for (;;) {
    if (await check()) return { for: options.what, waitedMs: workflowNow() - started };
    if (workflowNow() - started >= options.timeoutMs) {
      throw ApplicationFailure.create({
        type: 'WaitTimedOut',
        message: `gave up waiting for ${options.what} after ${Math.round(options.timeoutMs / 1000)} s`,
        nonRetryable: true,
      });
    }
    // Timer durations are not part of replay's command matching, so this stays compatible with histories.
    await sleep(interval, { summary: `poll: ${options.what}` });
    interval = Math.min(interval * 2, options.intervalMs);
  }
}
