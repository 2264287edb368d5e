import type {
  PlacedSpec,
  ProvisionSpec,
  ProvisionStage,
  ProvisionStatus,
  ProvisionStepKind,
  ProvisioningSettings,
  SeenVersion,
  StepOutcome,
} from '../../src/domain/provisioning';
import { provisioningProxies, type ProvisioningProxies } from './proxies';
import type { EnterStage } from './stage';

/** What every provisioning stage works with: the settings, the activity proxies, and the status it reports into. */
export interface ProvisionRun {
  readonly settings: ProvisioningSettings;
  readonly acts: ProvisioningProxies;
  readonly status: ProvisionStatus;
  enter: EnterStage<ProvisionStage>;
  /** Adds a step to the status: what was acted on, and whether anything changed. */
  record(step: ProvisionStepKind, subject: string, outcome: StepOutcome, detail?: string): void;
  /** What the run knows of its NetBox record between activities: one object, shared by every stage. */
  readonly known: RecordKnowledge;
}

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

/** The run once its spec and VMID are known, its node perhaps not yet (placement decides it). */
export interface UnplacedBuild extends ProvisionRun {
  readonly spec: ProvisionSpec;
  readonly vmid: number;
}

/** The run once its node is known too: what the stages after `place` build. */
export interface VmBuild extends ProvisionRun {
  readonly spec: PlacedSpec;
  readonly vmid: number;
  readonly node: string;
}

export function provisionRun(
  settings: ProvisioningSettings,
  status: ProvisionStatus,
  enter: EnterStage<ProvisionStage>,
): ProvisionRun {
  return {
    settings,
    acts: provisioningProxies(settings),
    status,
    enter,
    record: (step, subject, outcome, detail) =>
      status.steps.push({ step, subject, outcome, ...(detail ? { detail } : {}) }),
    known: {},
  };
}
