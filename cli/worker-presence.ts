import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/**
 * Whether a worker polls a task queue, from the queue's pollers (DescribeTaskQueue). Without one, a
 * query, an update or a workflow's result waits silently for as long as no worker comes; every command
 * that waits asks this first and says so within seconds.
 */

/** The server lists a poller for minutes after its last poll; a live one polls again at least every ~70 s. */
const LIVE_POLLER_MS = 2 * 60_000;

/** Not fatal to the work (nothing failed), but the command could not do what it was asked: exit code 1. */
export class NoWorkerError extends Error {
  override name = 'NoWorkerError';
}

export async function workerPolls(client: Client, taskQueue: string): Promise<boolean> {
  const answer = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  const now = Date.now();
  return (answer.pollers ?? []).some((p) => {
    const raw = p.lastAccessTime?.seconds;
    const seconds = typeof raw === 'number' ? raw : raw ? Number(raw.toString()) : 0;
    return seconds === 0 || now - seconds * 1000 < LIVE_POLLER_MS;
  });
}

export function noWorkerLine(client: Client, taskQueue: string, what: string): string {
  return `no worker polls task queue "${taskQueue}" (namespace ${client.options.namespace}): ${what} waits until one does; start a ferry worker for it (npm run worker)`;
}

/**
 * Goes on at once when a worker polls `taskQueue`. Otherwise says so on stderr, then waits for one with
 * `wait` (checking every 2 s), or fails with NoWorkerError without it.
 */
export async function requireWorker(
  client: Client,
  taskQueue: string,
  options: { wait: boolean; what: string },
): Promise<void> {
  if (await workerPolls(client, taskQueue)) return;
  const line = noWorkerLine(client, taskQueue, options.what);
  if (!options.wait) throw new NoWorkerError(`${line}; or pass --wait to wait for one`);
  console.error(`${line}; waiting for one (--wait)`);
  while (!(await workerPolls(client, taskQueue))) await sleep(2000);
  console.error(`a worker polls "${taskQueue}" now`);
}

/**
 * For a command that only starts a workflow: a warning, not a refusal (the workflow waits in Temporal).
 * Whether a worker polls.
 */
export async function warnWithoutWorker(client: Client, taskQueue: string, what: string): Promise<boolean> {
  const polled = await workerPolls(client, taskQueue);
  if (!polled) console.error(`warning: ${noWorkerLine(client, taskQueue, what)}`);
  return polled;
}
