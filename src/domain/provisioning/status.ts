import type { StageTiming } from '../vm-run';
import type { GuestVerification } from '../migration/verification';
import type { WaitRecord } from '../waits';

/**
 * What a provisioning workflow did, step by step, in one shape for its `status` query and its result:
 * every step names its subject and whether it changed anything, so a rerun that finds everything in
 * place shows only `unchanged` / `adopted` steps.
 */
export type ProvisionStage =
  | 'resolve'
  | 'vmid'
  | 'check'
  | 'preflight'
  | 'create'
  | 'hardware'
  | 'netbox'
  | 'address'
  | 'dns'
  | 'cloud-init'
  | 'handover'
  | 'start'
  | 'verify-guest'
  | 'done'
  | 'failed';

export type ProvisionStepKind =
  | 'allocate-vmid'
  | 'record-vmid'
  | 'create-vm'
  | 'acl'
  | 'disk'
  | 'nic'
  | 'options'
  | 'interface'
  | 'mac'
  | 'ip'
  | 'primary-ip'
  | 'dns-a'
  | 'dns-ptr'
  | 'netbox-status'
  | 'cloud-init'
  | 'start'
  | 'verify-guest';

export type StepOutcome = 'created' | 'updated' | 'unchanged' | 'adopted' | 'skipped';

export interface ProvisionStep {
  step: ProvisionStepKind;
  /** What it acted on: `VM 9001`, `scsi0`, `net0`, `web1.lab.example.com A`, … */
  subject: string;
  outcome: StepOutcome;
  detail?: string;
}

export interface ProvisionStatus {
  kind: 'provision';
  name?: string;
  netboxId?: number;
  vmid?: number;
  node?: string;
  stage: ProvisionStage;
  timings: Array<StageTiming<ProvisionStage>>;
  steps: ProvisionStep[];
  waits: WaitRecord[];
  waiting?: { for: string; since: number };
  /** MAC per NIC slot, as Proxmox has it. */
  macs: Record<string, string>;
  /** CIDR, from NetBox. */
  address?: string;
  fqdn?: string;
  /** What the guest showed after ferry started a VM that boots an image (a disk with importFrom). */
  verification?: GuestVerification;
  error?: string;
  outcome?: 'provisioned';
}

export type ProvisionResult = ProvisionStatus & { outcome: 'provisioned' };

export function newProvisionStatus(netboxId?: number): ProvisionStatus {
  return {
    kind: 'provision',
    ...(netboxId !== undefined ? { netboxId } : {}),
    stage: 'resolve',
    timings: [],
    steps: [],
    waits: [],
    macs: {},
  };
}

/** Whether a step wrote anything. */
export function changed(step: ProvisionStep): boolean {
  return step.outcome === 'created' || step.outcome === 'updated';
}

/** A step's record: what was acted on, and whether anything changed (with why, when there is more to say). */
export function provisionStep(
  step: ProvisionStepKind,
  subject: string,
  outcome: StepOutcome,
  detail?: string,
): ProvisionStep {
  return { step, subject, outcome, ...(detail ? { detail } : {}) };
}

export function describeStep(s: ProvisionStep): string {
  return `${s.step.padEnd(13)} ${s.subject}: ${s.outcome}${s.detail ? ` (${s.detail})` : ''}`;
}

/**
 * `provision-<netboxId>` (`provision-<netbox>-<netboxId>` when NetBox has a name in the config); a
 * spec without a NetBox record: `provision-spec-<name>`.
 */
export function provisionWorkflowId(input: { netboxId?: number; name?: string }, netbox?: string): string {
  if (input.netboxId !== undefined) return `provision-${netbox ? `${netbox}-` : ''}${input.netboxId}`;
  if (!input.name) throw new TypeError('a provision needs a NetBox id or a spec with a name');
  return `provision-spec-${input.name}`;
}

/** `provision-planned[-<cluster>][-<tag>]`: starting the same selection again finds the running batch. */
export function provisionPlannedWorkflowId(selection: { cluster?: string; tag?: string }): string {
  return ['provision-planned', selection.cluster, selection.tag].filter(Boolean).join('-');
}

/** One VM of a `provisionPlanned` run, as its status lists it. */
export interface PlannedVm {
  netboxId: number;
  name: string;
  workflowId: string;
  state: 'pending' | 'running' | 'finished';
  stage?: string;
  outcome?: 'provisioned' | 'failed' | 'not-started';
  vmid?: number;
  address?: string;
  error?: string;
}

export interface ProvisionPlannedStatus {
  kind: 'provision-planned';
  selection: { cluster?: string; tag?: string };
  stage: 'select' | 'provisioning' | 'done';
  vms: PlannedVm[];
  counts: { pending: number; running: number; finished: number };
}

export function plannedCounts(vms: readonly PlannedVm[]): ProvisionPlannedStatus['counts'] {
  return {
    pending: vms.filter((v) => v.state === 'pending').length,
    running: vms.filter((v) => v.state === 'running').length,
    finished: vms.filter((v) => v.state === 'finished').length,
  };
}
