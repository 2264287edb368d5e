import { proxyActivities, type ActivityOptions } from '@temporalio/workflow';
import type { ChangeActivities } from '../../activities/change-contract';
import type { ConversionActivities } from '../../activities/conversion-contract';
import type { HaActivities } from '../../activities/ha-contract';
import type { MigrationActivities } from '../../activities/migration-contract';
import type { PlacementActivities, ShellMoveActivities } from '../../activities/placement/contract';
import type { ProvisioningActivities, TeardownActivities } from '../../activities/provisioning-contract';
import type { PveVmActivities } from '../../activities/pve-vm-contract';
import { heavyQueue, type HeavyWork } from '../../src/domain/task-queues';
import { mainQueue } from '../queues';

/**
 * Every activity a VM workflow calls, through one of a few named profiles: how long one attempt may take,
 * how it is retried, on which queue. Transient trouble (network, 5xx, locks) is retried with backoff;
 * invalid input, permission and policy refusals come back non-retryable from activities/failures.ts and
 * fail at once. A stage picks the profile for the kind of work (`acts.read.findPveVms`,
 * `acts.pveTask.startVm`), never its own timeouts.
 */
export type VmWork = PveVmActivities &
  ChangeActivities &
  MigrationActivities &
  ProvisioningActivities &
  TeardownActivities &
  ShellMoveActivities &
  PlacementActivities &
  HaActivities;

type Retry = NonNullable<ActivityOptions['retry']>;

/** The default backoff: 2 s doubling to a minute, ten attempts (a few minutes in all). */
export const RETRY: Retry = {
  initialInterval: '2s',
  backoffCoefficient: 2,
  maximumInterval: '1m',
  maximumAttempts: 10,
};

/**
 * vMotions, imports, moves and conversions run for hours and a retry rejoins the task the last attempt
 * started (its id is in the heartbeat): retried for as long as their schedule-to-close allows.
 */
const LONG_RETRY: Retry = { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '1m' };

/** Room for retries (and rejoining a task) beyond one attempt's start-to-close. */
export function longScheduleToCloseMs(startToCloseMs: number): number {
  return 2 * startToCloseMs;
}

const LEASE_MARGIN_MS = 15 * 60_000;

/** A permit held around a long activity lasts as long as the activity may retry (and rejoin its task), and a margin. */
export function permitLeaseMs(startToCloseMs: number): number {
  return longScheduleToCloseMs(startToCloseMs) + LEASE_MARGIN_MS;
}

/** Reads before a run knows its settings (the settings themselves): short, retried for a few minutes. */
export const reads = proxyActivities<VmWork>({ startToCloseTimeout: '1m', retry: RETRY });

export interface ProfileTiming {
  /**
   * The Temporal priority of every call but the conversions' own (a VM's downtime work: DOWNTIME_PRIORITY,
   * which makes the worker's conversions yield to it).
   */
  priority?: ActivityOptions['priority'];
  /** How soon a silent activity counts as lost (its worker died) and is retried elsewhere. */
  heartbeatTimeoutMs: number;
  /** The family's backoff, when it has its own (provisioning.retry). */
  retry?: Retry;
  /**
   * The family's bounds on retries by time (provisioning's backoff has no attempt count): a short call's
   * and a task's schedule-to-close, and how long a shutdown is retried after its own timeout.
   */
  bounds?: { shortMs: number; taskMs: number; shutdownRetryMs: number };
}

/** proxyActivities with a priority, when given. */
const atPriority =
  (priority: ActivityOptions['priority']) =>
  <A extends object>(options: ActivityOptions) =>
    proxyActivities<A>(priority ? { ...options, priority } : options);

/** The profiles a run's stages call activities through, with the run's heartbeat timeout and backoff. */
export function activityProfiles(timing: ProfileTiming) {
  const { retry = RETRY, heartbeatTimeoutMs: heartbeatTimeout, bounds } = timing;
  const short = bounds ? { scheduleToCloseTimeout: bounds.shortMs } : {};
  const proxy = atPriority(timing.priority); // every profile but the conversion's own
  return {
    /** Reads: an answer within a minute. */
    read: proxy<VmWork>({ startToCloseTimeout: '1m', retry, ...short }),
    /**
     * Reads that grow with the estate (a wave's discovery, the plan's read of Proxmox): they heartbeat, so
     * a big estate may take its time while a read lost with its worker is retried within the heartbeat timeout.
     */
    estateRead: proxy<VmWork>({ startToCloseTimeout: '1h', heartbeatTimeout, retry }),
    /** Writes without a task (NetBox, DNS, an ACL, a config PUT): short. */
    write: proxy<VmWork>({ startToCloseTimeout: '2m', retry, ...short }),
    /** Proxmox writes that wait on a task (create, disks, power, delete, a shell): heartbeating. */
    pveTask: proxy<VmWork>({
      startToCloseTimeout: '15m',
      heartbeatTimeout,
      retry,
      ...(bounds ? { scheduleToCloseTimeout: bounds.taskMs } : {}),
    }),
    /** A guest shutdown, which waits up to its own timeout inside the call. */
    shutdown: (timeoutMs: number) =>
      proxy<VmWork>({
        startToCloseTimeout: timeoutMs + 5 * 60_000,
        heartbeatTimeout,
        retry,
        ...(bounds ? { scheduleToCloseTimeout: timeoutMs + 5 * 60_000 + bounds.shutdownRetryMs } : {}),
      }),
    /** A long copy on its heavy queue (vMotion, import, live import, move): retried as long as it may take. */
    longCopy: (kind: Extract<HeavyWork, 'vmotion' | 'import'>, startToCloseMs: number) =>
      proxy<VmWork>({
        taskQueue: heavyQueue(mainQueue(), kind),
        startToCloseTimeout: startToCloseMs,
        scheduleToCloseTimeout: longScheduleToCloseMs(startToCloseMs),
        heartbeatTimeout,
        retry: LONG_RETRY,
      }),
    /**
     * Guest conversion on the convert queue (workers that mount the migration datastore and run libguestfs),
     * never at the downtime priority (a conversion yields to cutovers, it is not one of them):
     * retried for lost workers and appliances that did not start; a guest virt-v2v refuses comes back
     * non-retryable. Its inspection is a read: a few tries.
     */
    conversion: (startToCloseMs: number) =>
      proxyActivities<ConversionActivities>({
        taskQueue: heavyQueue(mainQueue(), 'convert'),
        startToCloseTimeout: startToCloseMs,
        scheduleToCloseTimeout: longScheduleToCloseMs(startToCloseMs),
        heartbeatTimeout,
        retry,
      }),
    /** Overlays made and dropped on their own queue: never in a VM's downtime behind another's conversion. */
    datastore: proxy<ConversionActivities>({
      taskQueue: heavyQueue(mainQueue(), 'datastore'),
      startToCloseTimeout: '30m',
      heartbeatTimeout,
      retry,
    }),
    inspection: proxyActivities<ConversionActivities>({
      taskQueue: heavyQueue(mainQueue(), 'convert'),
      startToCloseTimeout: '20m',
      heartbeatTimeout,
      retry: { ...retry, maximumAttempts: 3 },
    }),
    /** SDN writes on their own queue (the cluster-wide SDN lock makes them one at a time anyway). */
    sdn: proxy<VmWork>({
      taskQueue: heavyQueue(mainQueue(), 'sdn'),
      startToCloseTimeout: '10m',
      heartbeatTimeout,
      retry,
    }),
    /** Cluster-config writes (HA): short. */
    cluster: proxy<HaActivities>({ startToCloseTimeout: '1m', retry }),
    /** A cleanup gets a few tries, then is reported failed while the others go on. */
    cleanup: (attempts: number) =>
      proxy<VmWork>({ startToCloseTimeout: '2m', retry: { ...retry, maximumAttempts: attempts } }),
  };
}

export type ActivityProfiles = ReturnType<typeof activityProfiles>;
