import type {
  PlacedSpec,
  ProvisionSpec,
  ProvisionStage,
  ProvisionStatus,
  ProvisionStep,
  ProvisioningSettings,
  SeenVersion,
} from '../../src/domain/provisioning';
import { activityProfiles, type ActivityProfiles, type ProfileTiming } from '../vm/proxies';
import { VmRun } from '../vm/run';

/**
 * What a run has seen of its NetBox record, so a later write can skip the read it would otherwise
 * need: a write guarded by the ETag seen is refused if anyone changed the VM since, and then reads.
 */
export interface RecordKnowledge {
  /** The VM's ETag and status as this run last read or wrote them (NetBox 4.6+). */
  seen?: SeenVersion;
  /** The VM had no interfaces when this run read it. */
  hadNoInterfaces?: boolean;
}

/**
 * How provisioning's activities are retried: its own backoff, bounded by time (short calls 30 min, tasks
 * 2 h, a shutdown half an hour past its timeout), so a run against an unreachable Proxmox fails in the end.
 */
export function provisioningTiming(
  settings: Pick<ProvisioningSettings, 'heartbeatTimeoutMs' | 'retry'>,
): ProfileTiming {
  return {
    heartbeatTimeoutMs: settings.heartbeatTimeoutMs,
    retry: {
      initialInterval: settings.retry.initialIntervalMs,
      backoffCoefficient: 2,
      maximumInterval: settings.retry.maximumIntervalMs,
    },
    bounds: { shortMs: 30 * 60_000, taskMs: 2 * 60 * 60_000, shutdownRetryMs: 30 * 60_000 },
  };
}

/** One provision, as every stage sees it: the kernel's run with the settings, activity profiles and what it knows of its record. */
export class ProvisionRun extends VmRun<ProvisionStage, ProvisionStatus, ProvisionStep> {
  readonly acts: ActivityProfiles;
  /** What the run knows of its NetBox record between activities: one object, shared by every stage. */
  readonly known: RecordKnowledge = {};

  constructor(
    readonly settings: ProvisioningSettings,
    status: ProvisionStatus,
  ) {
    super(status, (s) => s.steps, status.netboxId !== undefined ? `NetBox VM ${status.netboxId}` : 'a VM spec');
    this.acts = activityProfiles(provisioningTiming(settings));
  }
}

/** What the stages use of the run (its own fields and bound operations): a build adds what it has found out. */
export type ProvisionRunView = Pick<
  ProvisionRun,
  'settings' | 'acts' | 'status' | 'known' | 'enter' | 'end' | 'record' | 'waited' | 'beginWait' | 'waitFor' | 'named'
>;

/** The run once its spec and VMID are known, its node perhaps not yet (placement decides it). */
export interface UnplacedBuild extends ProvisionRunView {
  readonly spec: ProvisionSpec;
  readonly vmid: number;
}

/** The run once its node is known too: what the stages after `place` build. */
export interface VmBuild extends ProvisionRunView {
  readonly spec: PlacedSpec;
  readonly vmid: number;
  readonly node: string;
}
