import { ApplicationFailure, sleep } from '@temporalio/workflow';
import type { WaitRecord } from '../src/domain/waits';
import { workflowNow } from './clock';

export interface PollOptions {
  /** What is awaited, for the record and the error. */
  what: string;
  intervalMs: number;
  timeoutMs: number;
}

/**
 * Waits for a condition that only an activity can observe, checking it on durable timers (no fixed
 * pause, no busy activity). Returns how long it took; throws if the deadline passes.
 */
export async function pollUntil(check: () => Promise<boolean>, options: PollOptions): Promise<WaitRecord> {
  const started = workflowNow();
  for (;;) {
    if (await check()) return { for: options.what, waitedMs: workflowNow() - started };
    if (workflowNow() - started >= options.timeoutMs) {
      throw ApplicationFailure.create({
        type: 'WaitTimedOut',
        message: `gave up waiting for ${options.what} after ${Math.round(options.timeoutMs / 1000)} s`,
        nonRetryable: true,
      });
    }
    await sleep(options.intervalMs);
  }
}
