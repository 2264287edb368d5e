import { proxyActivities, type ActivityOptions } from '@temporalio/workflow';
import type { ConversionActivities } from '../../activities/conversion-contract';
import type {
  MigrationActivities,
  ProxmoxMigrationActivities,
  VsphereMigrationActivities,
} from '../../activities/migration-contract';
import { heavyQueue } from '../../src/domain/task-queues';
import { mainQueue as deploymentQueue } from '../queues';

// Transient trouble (network, 5xx, locks) is retried with backoff; invalid input, permission and
// policy refusals come back non-retryable from activities/failures.ts and fail at once.
const RETRY: ActivityOptions['retry'] = {
  initialInterval: '2s',
  backoffCoefficient: 2,
  maximumInterval: '1m',
  maximumAttempts: 10,
};
/**
 * vMotions and imports run for hours and a retry rejoins the task the last attempt started (its id is in
 * the heartbeat): retried for as long as their schedule-to-close allows, not a handful of times.
 */
const LONG_RETRY: ActivityOptions['retry'] = { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '1m' };

/** Room for retries (and rejoining a task) beyond one attempt's start-to-close. */
export function longScheduleToCloseMs(startToCloseMs: number): number {
  return 2 * startToCloseMs;
}

const LEASE_MARGIN_MS = 15 * 60_000;

/** A permit held around a long activity lasts as long as the activity may retry (and rejoin its task), and a margin. */
export function permitLeaseMs(startToCloseMs: number): number {
  return longScheduleToCloseMs(startToCloseMs) + LEASE_MARGIN_MS;
}

/** Reads: short timeouts, no heartbeat (a read lost with its worker is retried after a minute). */
export const reads = proxyActivities<MigrationActivities>({ startToCloseTimeout: '1m', retry: RETRY });

/** The bound on a read that grows with the estate; its heartbeat, not this, notices a lost worker. */
const ESTATE_READ_TIMEOUT = '1h';

/**
 * Reads that grow with the estate (discovery of the wave, the plan's read of Proxmox): they heartbeat,
 * so a big estate may take its time while a read lost with its worker is retried within the heartbeat
 * timeout.
 */
export function estateReads(heartbeatTimeoutMs: number) {
  return proxyActivities<MigrationActivities>({
    startToCloseTimeout: ESTATE_READ_TIMEOUT,
    heartbeatTimeout: heartbeatTimeoutMs,
    retry: RETRY,
  });
}

export interface ProxyTiming {
  /**
   * How soon a silent activity counts as lost (its worker died) and is retried elsewhere. Every long
   * activity heartbeats well within it.
   */
  heartbeatTimeoutMs: number;
  relocateTimeoutMs: number;
  importTimeoutMs: number;
  shutdownTimeoutMs: number;
}

/** The long-running activities, each on its queue (derived from the workflow's own) with its timeouts. */
export function longActivities(timing: ProxyTiming) {
  const mainQueue = deploymentQueue();
  const heartbeatTimeout = timing.heartbeatTimeoutMs;
  return {
    /** Proxmox writes that wait on a task. */
    pve: proxyActivities<ProxmoxMigrationActivities>({ startToCloseTimeout: '15m', heartbeatTimeout, retry: RETRY }),
    /** Storage vMotion on the vMotion queue. */
    vmotion: proxyActivities<Pick<VsphereMigrationActivities, 'relocateVm'>>({
      taskQueue: heavyQueue(mainQueue, 'vmotion'),
      startToCloseTimeout: timing.relocateTimeoutMs,
      scheduleToCloseTimeout: longScheduleToCloseMs(timing.relocateTimeoutMs),
      heartbeatTimeout,
      retry: LONG_RETRY,
    }),
    /** Disk imports (and live imports, and overlay mode's live moves) on the import queue. */
    copies: proxyActivities<Pick<ProxmoxMigrationActivities, 'importDisk' | 'liveImportVm' | 'moveDisk'>>({
      taskQueue: heavyQueue(mainQueue, 'import'),
      startToCloseTimeout: timing.importTimeoutMs,
      scheduleToCloseTimeout: longScheduleToCloseMs(timing.importTimeoutMs),
      heartbeatTimeout,
      retry: LONG_RETRY,
    }),
    /** Guest shutdown waits up to its own timeout before it returns. */
    guest: proxyActivities<Pick<VsphereMigrationActivities, 'shutdownGuest' | 'powerOnVm'>>({
      startToCloseTimeout: timing.shutdownTimeoutMs + 5 * 60_000,
      heartbeatTimeout,
      retry: RETRY,
    }),
  };
}

/**
 * Guest conversion on the convert queue (workers that mount the migration datastore and run libguestfs).
 * A conversion is retried only for lost workers and appliances that did not start: a guest virt-v2v
 * refuses comes back non-retryable and waits for a person. An inspection is a read: a few tries.
 */
export function conversions(heartbeatTimeoutMs: number, conversionTimeoutMs: number) {
  const taskQueue = heavyQueue(deploymentQueue(), 'convert');
  return {
    inspect: proxyActivities<Pick<ConversionActivities, 'inspectGuest'>>({
      taskQueue,
      startToCloseTimeout: '20m',
      heartbeatTimeout: heartbeatTimeoutMs,
      retry: { ...RETRY, maximumAttempts: 3 },
    }),
    convert: proxyActivities<
      Pick<ConversionActivities, 'convertGuest' | 'createOverlays' | 'removeConversionOverlays'>
    >({
      taskQueue,
      startToCloseTimeout: conversionTimeoutMs,
      scheduleToCloseTimeout: longScheduleToCloseMs(conversionTimeoutMs),
      heartbeatTimeout: heartbeatTimeoutMs,
      retry: RETRY,
    }),
  };
}

/** SDN writes run on their own queue (the cluster-wide SDN lock makes them one at a time anyway). */
export function sdnWrites(heartbeatTimeoutMs: number) {
  return proxyActivities<Pick<ProxmoxMigrationActivities, 'ensureSdn'>>({
    taskQueue: heavyQueue(deploymentQueue(), 'sdn'),
    startToCloseTimeout: '10m',
    heartbeatTimeout: heartbeatTimeoutMs,
    retry: RETRY,
  });
}

export function timingOf(settings: {
  heartbeatTimeoutMs: number;
  relocateTimeoutMs: number;
  cutover: { importTimeoutMs: number; shutdownTimeoutMs: number };
}): ProxyTiming {
  return {
    heartbeatTimeoutMs: settings.heartbeatTimeoutMs,
    relocateTimeoutMs: settings.relocateTimeoutMs,
    importTimeoutMs: settings.cutover.importTimeoutMs,
    shutdownTimeoutMs: settings.cutover.shutdownTimeoutMs,
  };
}
