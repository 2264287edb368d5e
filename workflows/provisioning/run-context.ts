import type {
  PlacedSpec,
  ProvisionSpec,
  ProvisionStage,
  ProvisionStatus,
  ProvisionStepKind,
  ProvisioningSettings,
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

export function provisionRun(settings: ProvisioningSettings, status: ProvisionStatus, enter: EnterStage<ProvisionStage>): ProvisionRun {
  return {
    settings,
    acts: provisioningProxies(settings),
    status,
    enter,
    record: (step, subject, outcome, detail) => status.steps.push({ step, subject, outcome, ...(detail ? { detail } : {}) }),
  };
}
