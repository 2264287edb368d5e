import type { ApprovalPolicy, ApprovalSignature } from './approvals/statement';
import type { ChangeOutcome, ChangePlan, ChangePolicy } from './change';
import type { CutoverWindow } from './migration/cutover-window';
import type { DecisionRecord } from './migration/status';
import type { SpecDefaults } from './provisioning/spec';
import type { VmRunStatus } from './vm-run';
import type { IgnoredMessage } from './vm-run';

/**
 * `changeVm`: one durable workflow per Proxmox VM (`change-<vmid>`) keeps a built VM equal to its NetBox
 * record. This file holds what its starters share: the type name, the id, the start input and the edits
 * NetBox reports. Nothing here carries a secret: start input and signals are in the history.
 */

/** The workflow type starters name (the receiver starts it by name: it sits below workflows/). */
export const CHANGE_VM_WORKFLOW_TYPE = 'changeVm';

/** One workflow per VM: starting or signalling twice finds the same one, so a burst of edits lands on one plan. */
export function changeVmWorkflowId(vmid: number): string {
  return `change-${vmid}`;
}

/** The NetBox models whose edits reach `changeVm`: a VM, its interfaces and its virtual disks. */
export const NETBOX_EDIT_MODELS = [
  'virtualization.virtualmachine',
  'virtualization.vminterface',
  'virtualization.virtualdisk',
] as const;
export type NetboxEditModel = (typeof NETBOX_EDIT_MODELS)[number];

/** NetBox's webhook `event` for an object change (its `object_created` … event types). */
export const NETBOX_EDIT_EVENTS = ['created', 'updated', 'deleted'] as const;
export type NetboxEditEvent = (typeof NETBOX_EDIT_EVENTS)[number];

/** What started a `changeVm` run: NetBox's webhook, `ferry apply`, or the drift schedule. */
export interface ChangeTrigger {
  source: 'netbox-webhook' | 'ferry-apply' | 'schedule';
  /** NetBox's request id (`X-Request-ID`, the change log's `request_id`), when the edit came through a request. */
  requestId?: string;
  /** When NetBox says the event happened (ISO 8601, NetBox's `timestamp`). */
  at: string;
}

/** The start input of `changeVm`. */
export interface ChangeVmInput {
  /** The NetBox VM (its id): the record the VM is kept equal to. */
  netboxId: number;
  /** The Proxmox VMID (`ferry_vmid`); also in the workflow id. */
  vmid: number;
  trigger: ChangeTrigger;
  /** Resolved by a batch (`ferry apply --cluster`); a standalone run loads them from the worker's configuration. */
  settings?: ChangeSettings;
}

/**
 * One edit NetBox reported (the `netboxEdited` signal). It says only what changed, not how: events can
 * arrive late, twice or out of order, so `changeVm` reads the record again before it plans.
 */
export interface NetboxEdit {
  model: NetboxEditModel;
  /** The id of the edited object: the VM, the interface or the virtual disk. */
  objectId: number;
  event: NetboxEditEvent;
  /** NetBox's timestamp of the event (ISO 8601). */
  at: string;
  requestId?: string;
  /** Not NetBox's event: `ferry apply` asked the running workflow to read both sides and plan again. */
  from?: 'ferry-apply';
}

/** What `changeVm` runs with: the policy, provisioning's defaults (the one translation) and its timing. */
export interface ChangeSettings {
  policy: ChangePolicy;
  /** provisioning's defaults: the same translation from a NetBox record that built the VM. */
  defaults: SpecDefaults;
  debounceMs: number;
  /** Inside it, changes that wait for a restart are written without an approval (ferry does not restart). */
  window?: CutoverWindow;
  restart: { shutdownTimeoutMs: number; forceStop: boolean };
  approvers: string[];
  approvals: ApprovalPolicy;
  heartbeatTimeoutMs: number;
  pollIntervalMs: number;
  retry: { initialIntervalMs: number; maximumIntervalMs: number };
  limits: { vmStart: number };
  /** After a restart, how long the guest has to answer again (agent, MACs, address). */
  guestTimeoutMs: number;
}

export const CHANGE_STAGES = [
  'debounce',
  'read',
  'plan',
  'apply',
  'verify',
  'awaiting-approval',
  'awaiting-window',
  'restart',
  'record',
  'done',
  'nothing-to-do',
  'rejected',
  'refused',
  'failed',
] as const;
export type ChangeStage = (typeof CHANGE_STAGES)[number];

/** One request group of a plan's steps the run sent, in the form the plan states them (`plan.steps`). */
export interface SentStep {
  step: 'live' | 'move' | 'resize' | 'restart' | 'stopped';
  /** The change ids it carried. */
  changes: string[];
}

/** `approve` a change that waits for a restart (signed like a teardown's), optionally asking ferry to restart the VM. */
export interface ChangeDecision {
  by: string;
  reason: string;
  /** ferry shuts the guest down (ACPI, then the policy's hard stop) and starts it, so the changes take effect. */
  restart?: boolean;
  signed?: ApprovalSignature;
}

export interface ChangeStatus extends VmRunStatus<ChangeStage> {
  kind: 'change';
  netboxId: number;
  vmid: number;
  name?: string;
  node?: string;
  trigger: ChangeTrigger;
  /** The edits NetBox reported, as they came (a burst becomes one plan). */
  edits: NetboxEdit[];
  /** The plan as last made (a new edit at the gate makes it again). */
  plan?: ChangePlan;
  /** Why the record cannot be planned (provisioning's translation refused it). */
  problems?: string[];
  sent: SentStep[];
  outcomes: ChangeOutcome[];
  approval?: DecisionRecord & { restart?: boolean };
  rejection?: DecisionRecord;
  /** Signals not acted on (unknown approver, nothing to approve, …). */
  ignored: IgnoredMessage[];
  /** ferry restarted the VM (an approval asked for it). */
  restarted?: boolean;
  /** The guest's agent did not answer after the writes: only Proxmox's config was judged. */
  guestUnread?: string;
  outcome?: ChangeRunOutcome;
}

/**
 * - `applied`: every change that acts was applied (live, or at the restart ferry did);
 * - `pending-restart`: written, waiting for the VM's next start;
 * - `nothing-to-do`: NetBox and Proxmox agree (nothing written);
 * - `partial`: some changes failed or were refused (each says why);
 * - `rejected`: a person rejected the changes that wait for a restart;
 * - `refused`: the record cannot be planned (what is wrong is in `problems`).
 */
export type ChangeRunOutcome = 'applied' | 'pending-restart' | 'nothing-to-do' | 'partial' | 'rejected' | 'refused';

export type ChangeResult = ChangeStatus & { outcome: ChangeRunOutcome };

export function newChangeStatus(input: ChangeVmInput): ChangeStatus {
  return {
    kind: 'change',
    netboxId: input.netboxId,
    vmid: input.vmid,
    stage: 'debounce',
    timings: [],
    waits: [],
    trigger: input.trigger,
    edits: [],
    sent: [],
    outcomes: [],
    ignored: [],
  };
}
