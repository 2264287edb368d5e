import { pollDelayToward, taskDurations } from '../poll-delay';
import type { MoRef } from './envelope';
import { faultFromLocalized, VsphereCancelledError } from './faults';
import { retrieveProperties } from './property-collector';
import { asInt, badAnswer } from './read';
import type { VimSession } from './session';
import { child, type XmlElement } from './xml';

/** What a long operation reports while it runs (an activity turns this into a heartbeat). */
export interface OperationProgress {
  /** `relocate`, `shutdown-guest`, `power-off`, `power-on`. */
  step: string;
  /** Task state (`queued`, `running`, `success`, `error`) or the VM's power state while waiting for it. */
  state: string;
  /** Percent done, when vCenter reports it (vcsim never does). */
  percent?: number;
  task?: string;
  elapsedMs: number;
}

export interface WaitOptions {
  onProgress?: (progress: OperationProgress) => void;
  /** Cancels the wait; a cancelable task is cancelled on the server too. */
  signal?: AbortSignal;
  pollIntervalMs?: number;
}

/** Sleeps, or rejects with the cancellation as soon as the signal fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(cancellation(signal));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancellation(signal!));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The error a cancelled operation ends with: the signal's own reason (e.g. Temporal's CancelledFailure) if it is one. */
export function cancellation(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new VsphereCancelledError('the operation was cancelled');
}

interface TaskInfo {
  state: string;
  progress?: number;
  error?: XmlElement;
  result?: XmlElement;
  name?: string;
}

async function readTaskInfo(session: VimSession, task: MoRef): Promise<TaskInfo> {
  const [content] = await retrieveProperties(session, {
    propSet: [{ type: 'Task', pathSet: ['info'] }],
    objectSet: [{ obj: task }],
  });
  const info = content?.props.get('info');
  if (!info) throw badAnswer(`Task ${task.value}`, 'the task has no info');
  const state = child(info, 'state')?.text;
  if (!state) throw badAnswer(`Task ${task.value} info`, 'state is missing');
  const progress = child(info, 'progress');
  return {
    state,
    progress: progress ? asInt(progress, `Task ${task.value} info.progress`) : undefined,
    error: child(info, 'error'),
    result: child(info, 'result'),
    name: child(info, 'name')?.text,
  };
}

/**
 * Polls a task until it succeeds (returns `info.result`) or fails (throws its fault, typed). Reports
 * each poll through `onProgress`; on cancellation, asks vCenter to cancel the task and throws the cancellation.
 */
export async function waitForTask(
  session: VimSession,
  task: MoRef,
  context: { step: string; method: string; object: string },
  options: WaitOptions = {},
): Promise<XmlElement | undefined> {
  const started = performance.now();
  const maxInterval = options.pollIntervalMs ?? 1000;
  for (;;) {
    const info = await readTaskInfo(session, task);
    options.onProgress?.({
      step: context.step,
      state: info.state,
      percent: info.progress,
      task: task.value,
      elapsedMs: Math.round(performance.now() - started),
    });
    if (info.state === 'success') {
      taskDurations.record(`vsphere:${context.method}`, performance.now() - started);
      return info.result;
    }
    if (info.state === 'error') {
      if (!info.error) throw badAnswer(`Task ${task.value}`, 'state is error but info.error is missing');
      throw faultFromLocalized(info.error, { method: context.method, object: context.object });
    }
    try {
      await sleep(
        pollDelayToward(performance.now() - started, maxInterval, taskDurations.expected(`vsphere:${context.method}`)),
        options.signal,
      );
    } catch (err) {
      // Best effort: vCenter refuses for tasks that cannot be cancelled (vcsim marks none cancelable but honours it).
      await session.call('CancelTask', task).catch(() => undefined);
      throw err;
    }
  }
}
