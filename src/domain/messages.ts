/**
 * Every signal, update and query ferry's workflows accept, shared by the workflows and by clients
 * (CLI, tests, other workflows), so a name is spelled in one place only.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { PermitRequest, PermitSuccessor, SemaphoreInput, SemaphoreState } from './permits';
import type {
  CancelRequest,
  CutoverApproval,
  CutoverDecision,
  CutoverPlan,
  MigrationStage,
  MigrationStatus,
  Throughput,
  VmFinished,
  WaveStatus,
} from './migration';
import type {
  AllocatorState,
  ProvisionPlannedStatus,
  ProvisionStatus,
  TeardownDecision,
  TeardownStatus,
  VmidRequest,
} from './provisioning';
import type { WaveSummary, WaveSummaryRequest } from './status';
import type { PlaceRequest, VmPlacement } from './placement';
import type { ChangeDecision, ChangeStatus, ChangeVmInput, NetboxEdit } from './change-vm';

/** Every ferry workflow answers this query with its status (see the typed definitions below). */
const STATUS = 'status';
/** For callers that do not know which kind of workflow they ask (the CLI's `status`). */
export const anyStatusQuery = defineQuery<FerryStatus>(STATUS);
export type FerryStatus =
  MigrationStatus | WaveStatus | ProvisionStatus | ProvisionPlannedStatus | TeardownStatus | AllocatorState;
/** One approval name for a VM and a wave, with one payload (a wave reads `vms`). */
const APPROVE_CUTOVER = 'approveCutover';
/** One cancel name for a VM and a wave, with one payload. */
const CANCEL_MIGRATION = 'cancelMigration';

// --- workflows that activities start (activities sit below workflows/, so they name them by signature) ---
/** workflows/semaphore.ts: one global limit; requesters signal-with-start it. */
export type SemaphoreWorkflow = (input: SemaphoreInput) => Promise<void>;
/** workflows/vmid-allocator.ts: the single writer of VMIDs; provisions reach it with update-with-start. */
export type VmidAllocatorWorkflow = (input: VmidAllocatorInput) => Promise<void>;
export interface VmidAllocatorInput {
  /** State carried across continue-as-new. */
  carried?: AllocatorState;
}
/**
 * workflows/change-vm.ts: keeps one built VM equal to its NetBox record (`change-<vmid>`, see
 * src/domain/change-vm.ts); NetBox's webhook receiver signals-with-start it. Its result is its own.
 */
export type ChangeVmWorkflow = (input: ChangeVmInput) => Promise<unknown>;

// --- semaphore (global limits) ---
export const acquirePermitSignal = defineSignal<[PermitRequest]>('acquirePermit');
export const releasePermitSignal = defineSignal<[{ requestId: string }]>('releasePermit');
export const renewPermitSignal = defineSignal<[{ requestId: string; leaseMs: number }]>('renewPermit');
/** Sent by the semaphore to the requesting workflow. */
export const permitGrantedSignal = defineSignal<[{ key: string; requestId: string }]>('permitGranted');
/**
 * Sent by the semaphore to a holder while all permits are held: when done, hand the permit straight to
 * this waiter (a permitGranted to it, then transferPermit here) instead of releasing it.
 */
export const permitSuccessorSignal =
  defineSignal<[{ key: string; requestId: string; successor: PermitSuccessor }]>('permitSuccessor');
/** Sent by a holder that handed its permit to its successor (already granted to it directly). */
export const transferPermitSignal = defineSignal<[{ requestId: string; to: string }]>('transferPermit');
/** Change the number of permits at run time; returns the new state. */
export const setPermitsUpdate = defineUpdate<SemaphoreState, [number]>('setPermits');
export const semaphoreStateQuery = defineQuery<SemaphoreState>('semaphoreState');

// --- migration (one VM) ---

/** Approve the cutover. The update is validated (known approver, a reason); the signal form is for `temporal workflow signal`. */
export const approveCutoverUpdate = defineUpdate<MigrationStatus, [CutoverApproval]>(APPROVE_CUTOVER);
export const approveCutoverSignal = defineSignal<[CutoverApproval]>(APPROVE_CUTOVER);
/** Refuse the cutover: the workflow ends with outcome `rejected`, VMware untouched. */
export const rejectCutoverUpdate = defineUpdate<MigrationStatus, [CutoverDecision]>('rejectCutover');
export const rejectCutoverSignal = defineSignal<[CutoverDecision]>('rejectCutover');
/** After a failure past the shutdown: try the cutover steps again … */
export const retryCutoverUpdate = defineUpdate<MigrationStatus, [CutoverDecision]>('retryCutover');
export const retryCutoverSignal = defineSignal<[CutoverDecision]>('retryCutover');
/** … or power the VMware VM back on and remove only the disks this workflow imported. */
export const rollbackUpdate = defineUpdate<MigrationStatus, [CutoverDecision]>('rollback');
export const rollbackSignal = defineSignal<[CutoverDecision]>('rollback');
/** What the cutover will do: disks and sizes, expected downtime, NIC → VNet. */
export const cutoverPlanQuery = defineQuery<CutoverPlan | undefined>('cutoverPlan');
/** Measured import throughput, sent by the wave to VMs that wait for approval. */
export const importThroughputSignal = defineSignal<[Throughput]>('importThroughput');
export const migrationStatusQuery = defineQuery<MigrationStatus>(STATUS);
/**
 * `ferry cancel`: before the shutdown the VM stops where it is (outcome `cancelled`); inside its cutover it
 * waits at its next safe point for retry or rollback. Validated like a decision; the signal form is for
 * `temporal workflow signal` and for the wave.
 */
export const cancelMigrationUpdate = defineUpdate<MigrationStatus, [CancelRequest]>(CANCEL_MIGRATION);
export const cancelMigrationSignal = defineSignal<[CancelRequest]>(CANCEL_MIGRATION);
/**
 * `ferry place`: move a VM that waits before its cutover to another node (and storage). Validated
 * (approver, reason, stage), then checked against capacity read by an activity; refused with the numbers.
 */
export const placeVmUpdate = defineUpdate<MigrationStatus, [PlaceRequest]>('placeVm');
/** A VM's workflow tells its wave where `ferry place` moved it. */
export const vmPlacedSignal = defineSignal<[{ moid: string; placement: VmPlacement }]>('vmPlaced');

// --- migration wave ---
/** Approve the cutover of every VM of the wave, or of the VMs named. Validated like a VM's approval. */
export const approveWaveUpdate = defineUpdate<WaveStatus, [CutoverApproval]>(APPROVE_CUTOVER);
export const approveWaveSignal = defineSignal<[CutoverApproval]>(APPROVE_CUTOVER);
export const waveStatusQuery = defineQuery<WaveStatus>(STATUS);
/** Cancel the wave: VMs not started never start, and each running VM is cancelled as `cancelMigrationUpdate` says. */
export const cancelWaveUpdate = defineUpdate<WaveStatus, [CancelRequest]>(CANCEL_MIGRATION);
export const cancelWaveSignal = defineSignal<[CancelRequest]>(CANCEL_MIGRATION);
/** The wave at any size: counts, ETA and one page of VM rows (src/domain/status/wave-summary.ts). */
export const waveSummaryQuery = defineQuery<WaveSummary, [WaveSummaryRequest?]>('waveSummary');
/** Sent by each VM's workflow to its wave: its stage changes and its end. */
/** `seq` counts a run's stage changes: signals to another workflow may arrive out of order. */
export const vmStageSignal =
  defineSignal<[{ moid: string; stage: MigrationStage; at: number; seq?: number }]>('vmStage');
export const vmFinishedSignal = defineSignal<[VmFinished]>('vmFinished');

// --- provisioning ---
export const provisionStatusQuery = defineQuery<ProvisionStatus>(STATUS);
export const provisionPlannedStatusQuery = defineQuery<ProvisionPlannedStatus>(STATUS);
/** A VMID for a record without one; the same key gets the same VMID. Sent with update-with-start. */
export const allocateVmidUpdate = defineUpdate<number, [VmidRequest]>('allocateVmid');
export const vmidAllocatorStatusQuery = defineQuery<AllocatorState>(STATUS);

// --- day-2 change ---
/** NetBox reported an edit of the VM, one of its interfaces or one of its virtual disks (its signed webhook). */
export const netboxEditedSignal = defineSignal<[NetboxEdit]>('netboxEdited');
export const changeStatusQuery = defineQuery<ChangeStatus>(STATUS);
/**
 * Approve the changes of a `changeVm` run that wait for a restart (signed over the plan, like a
 * teardown's approval); `restart: true` asks ferry to restart the VM so they take effect.
 */
export const approveChangeUpdate = defineUpdate<ChangeStatus, [ChangeDecision]>('approveChange');
export const approveChangeSignal = defineSignal<[ChangeDecision]>('approveChange');
/** Refuse them: nothing that waits for a restart is written; the live changes stay applied. */
export const rejectChangeUpdate = defineUpdate<ChangeStatus, [ChangeDecision]>('rejectChange');
export const rejectChangeSignal = defineSignal<[ChangeDecision]>('rejectChange');

// --- teardown ---
export const teardownStatusQuery = defineQuery<TeardownStatus>(STATUS);
/** Approve a teardown that needs approval. Validated like a cutover approval; the signal form is for `temporal workflow signal`. */
export const approveTeardownUpdate = defineUpdate<TeardownStatus, [TeardownDecision]>('approveTeardown');
export const approveTeardownSignal = defineSignal<[TeardownDecision]>('approveTeardown');
/** Refuse it: the workflow ends with outcome `rejected`, nothing removed. */
export const rejectTeardownUpdate = defineUpdate<TeardownStatus, [TeardownDecision]>('rejectTeardown');
export const rejectTeardownSignal = defineSignal<[TeardownDecision]>('rejectTeardown');
