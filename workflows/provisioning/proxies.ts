import { proxyActivities, type ActivityInterfaceFor, type ActivityOptions } from '@temporalio/workflow';
import type {
  ProvisioningActivities,
  PveVmActivities,
  TeardownActivities,
} from '../../activities/provisioning-contract';
import type { ProvisioningSettings } from '../../src/domain/provisioning';

/**
 * Activity proxies of the provisioning and teardown workflows, one per kind of work. Transient trouble
 * (network, 5xx, locks, digest conflicts) is retried with backoff until the kind's overall deadline;
 * invalid input, permission and policy refusals come back non-retryable from activities/failures.ts
 * and fail at once. Each call adds a summary the Temporal UI shows on its event
 * (`create VM 9001 web1 on pve1`, `scsi0: 20 GiB on local-lvm`, …).
 */
export type ProvisioningWork = ProvisioningActivities & TeardownActivities & PveVmActivities;
export type ProvisioningProxy = ActivityInterfaceFor<ProvisioningWork>;

const RETRY: ActivityOptions['retry'] = { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s' };

/** Reads before the settings are known (the settings themselves, the allocator's): answer quickly; keep trying for a while. */
const READ: ActivityOptions = { startToCloseTimeout: '1m', scheduleToCloseTimeout: '15m', retry: RETRY };
export const reads = proxyActivities<ProvisioningActivities>(READ);

/** The settings from the worker's ferry.yaml, for a workflow started without them. */
export function loadSettings(): Promise<ProvisioningSettings> {
  return reads.loadProvisioningSettings.executeWithOptions(
    { summary: 'read the provisioning settings (ferry.yaml)' },
    [],
  );
}

export interface ProvisioningTiming {
  /** A task wait silent for this long counts as lost (worker died) and is retried on another worker. */
  heartbeatTimeoutMs: number;
  retry: { initialIntervalMs: number; maximumIntervalMs: number };
}

export interface ProvisioningProxies {
  read: ProvisioningProxy;
  /** Writes without a task (NetBox, DNS, ACL, config PUT): short, retried for a while. */
  record: ProvisioningProxy;
  /** Writes that wait on a Proxmox task (create, disks, power, delete): long, heartbeating. */
  vmTask: ProvisioningProxy;
  /**
   * A guest shutdown waits up to its own timeout inside the task; retries stop half an hour after
   * that, so a teardown against an unreachable Proxmox fails instead of retrying forever.
   */
  shutdown(timeoutMs: number): ProvisioningProxy;
  /** A teardown cleanup gets a few tries, then is reported failed while the others go on. */
  cleanup(attempts: number): ProvisioningProxy;
}

/** The proxies with the settings' heartbeat timeout and backoff. */
export function provisioningProxies(timing: ProvisioningTiming): ProvisioningProxies {
  const retry: ActivityOptions['retry'] = {
    initialInterval: timing.retry.initialIntervalMs,
    backoffCoefficient: 2,
    maximumInterval: timing.retry.maximumIntervalMs,
  };
  return {
    read: proxyActivities<ProvisioningWork>({ ...READ, retry }),
    record: proxyActivities<ProvisioningWork>({ startToCloseTimeout: '2m', scheduleToCloseTimeout: '30m', retry }),
    vmTask: proxyActivities<ProvisioningWork>({
      startToCloseTimeout: '15m',
      scheduleToCloseTimeout: '2h',
      heartbeatTimeout: timing.heartbeatTimeoutMs,
      retry,
    }),
    shutdown: (timeoutMs) =>
      proxyActivities<ProvisioningWork>({
        startToCloseTimeout: timeoutMs + 5 * 60_000,
        scheduleToCloseTimeout: timeoutMs + 35 * 60_000,
        heartbeatTimeout: timing.heartbeatTimeoutMs,
        retry,
      }),
    cleanup: (attempts) =>
      proxyActivities<ProvisioningWork>({ startToCloseTimeout: '2m', retry: { ...retry, maximumAttempts: attempts } }),
  };
}
