import { proxyActivities, type ActivityOptions } from '@temporalio/workflow';
import type { Activities } from '../../activities';

/**
 * Activity options of the provisioning and teardown workflows, one per kind of work. Transient trouble
 * (network, 5xx, locks, digest conflicts) is retried with backoff until the kind's overall deadline;
 * invalid input, permission and policy refusals come back non-retryable from activities/failures.ts
 * and fail at once.
 */
const RETRY: ActivityOptions['retry'] = { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s' };

/** Reads before the settings are known (the settings themselves, the allocator's): answer quickly; keep trying for a while. */
export const READ: ActivityOptions = { startToCloseTimeout: '1m', scheduleToCloseTimeout: '15m', retry: RETRY };
export const reads = proxyActivities<Activities>(READ);

export interface ProvisioningTiming {
  /** A task wait silent for this long counts as lost (worker died) and is retried on another worker. */
  heartbeatTimeoutMs: number;
  retry: { initialIntervalMs: number; maximumIntervalMs: number };
}

export function activityOptions(timing: ProvisioningTiming) {
  const retry: ActivityOptions['retry'] = { initialInterval: timing.retry.initialIntervalMs, backoffCoefficient: 2, maximumInterval: timing.retry.maximumIntervalMs };
  return {
    read: { ...READ, retry } satisfies ActivityOptions,
    /** Writes without a task (NetBox, DNS, ACL, config PUT): short, retried for a while. */
    record: { startToCloseTimeout: '2m', scheduleToCloseTimeout: '30m', retry } satisfies ActivityOptions,
    /** Writes that wait on a Proxmox task (create, disks, power, delete): long, heartbeating. */
    vmTask: {
      startToCloseTimeout: '15m',
      scheduleToCloseTimeout: '2h',
      heartbeatTimeout: timing.heartbeatTimeoutMs,
      retry,
    } satisfies ActivityOptions,
    /**
     * A guest shutdown waits up to its own timeout inside the task; retries stop half an hour after
     * that, so a teardown against an unreachable Proxmox fails instead of retrying forever.
     */
    shutdown: (timeoutMs: number): ActivityOptions => ({
      startToCloseTimeout: timeoutMs + 5 * 60_000,
      scheduleToCloseTimeout: timeoutMs + 35 * 60_000,
      heartbeatTimeout: timing.heartbeatTimeoutMs,
      retry,
    }),
    /** A teardown cleanup gets a few tries, then is reported failed while the others go on. */
    cleanup: (attempts: number): ActivityOptions => ({ startToCloseTimeout: '2m', retry: { ...retry, maximumAttempts: attempts } }),
  };
}

export type ActivityKinds = ReturnType<typeof activityOptions>;

type Fn = Activities[keyof Activities];

/**
 * Runs one activity with the options of its kind and a summary the Temporal UI shows on the event
 * (`create VM 9001 web1 on pve1`, `scsi0: 20 GiB on local-lvm`, …).
 */
export function run<K extends keyof Activities>(
  options: ActivityOptions,
  name: K,
  summary: string,
  ...args: Parameters<Activities[K]>
): Promise<Awaited<ReturnType<Activities[K]>>> {
  const activity = proxyActivities<Activities>(options)[name] as unknown as {
    executeWithOptions(o: ActivityOptions, a: Parameters<Fn>): Promise<Awaited<ReturnType<Activities[K]>>>;
  };
  return activity.executeWithOptions({ ...options, summary }, args as Parameters<Fn>);
}
