import { proxyActivities, workflowInfo, type ActivityOptions } from '@temporalio/workflow';
import type { MigrationActivities } from '../../activities/migration-contract';
import { heavyQueue } from '../../src/domain/task-queues';

// Transient trouble (network, 5xx, locks) is retried with backoff; invalid input, permission and
// policy refusals come back non-retryable from activities/failures.ts and fail at once.
const RETRY: ActivityOptions['retry'] = { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '1m', maximumAttempts: 10 };

/** Reads: short timeouts. */
export const reads = proxyActivities<MigrationActivities>({ startToCloseTimeout: '2m', retry: RETRY });

/** Proxmox writes that wait on a task: heartbeated while they wait. */
export const pveWrites = proxyActivities<MigrationActivities>({
  startToCloseTimeout: '15m',
  heartbeatTimeout: '1m',
  retry: RETRY,
});

/** SDN writes run on their own queue (the cluster-wide SDN lock makes them one at a time anyway). */
export function sdnWrites() {
  return proxyActivities<MigrationActivities>({
    taskQueue: heavyQueue(workflowInfo().taskQueue, 'sdn'),
    startToCloseTimeout: '10m',
    heartbeatTimeout: '1m',
    retry: RETRY,
  });
}

/** Storage vMotion: long, on the vMotion queue, progress heartbeated. */
export function relocation(timeoutMs: number) {
  return proxyActivities<MigrationActivities>({
    taskQueue: heavyQueue(workflowInfo().taskQueue, 'vmotion'),
    startToCloseTimeout: timeoutMs,
    heartbeatTimeout: '2m',
    retry: { ...RETRY, maximumAttempts: 5 },
  });
}

/** Disk imports and moves: long, on the import queue, progress heartbeated. */
export function diskCopies(timeoutMs: number) {
  return proxyActivities<MigrationActivities>({
    taskQueue: heavyQueue(workflowInfo().taskQueue, 'import'),
    startToCloseTimeout: timeoutMs,
    heartbeatTimeout: '2m',
    retry: { ...RETRY, maximumAttempts: 5 },
  });
}

/** Guest shutdown waits up to its own timeout before it returns. */
export function guestPower(shutdownTimeoutMs: number) {
  return proxyActivities<MigrationActivities>({
    startToCloseTimeout: shutdownTimeoutMs + 5 * 60_000,
    heartbeatTimeout: '1m',
    retry: RETRY,
  });
}
