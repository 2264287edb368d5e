import { workflowInfo, type SignalDefinition } from '@temporalio/workflow';
import { signedApprovalProblem, type ApprovalPolicy } from '../../src/domain/approvals';
import type { UpdateDefinition } from '@temporalio/common';
import {
  cancelEffect,
  cancelProblem,
  decisionProblem,
  guestWritesAtRisk,
  guestWritesProblem,
  notBeforeProblem,
  type CancellationRecord,
  type CutoverApproval,
  type CutoverDecision,
  type CutoverMode,
  type DecisionRecord,
  type MigrationStatus,
} from '../../src/domain/migration';
import { handleDecision } from '../decision-handlers';
import {
  approveCutoverSignal,
  approveCutoverUpdate,
  cancelMigrationSignal,
  cancelMigrationUpdate,
  rejectCutoverSignal,
  rejectCutoverUpdate,
  retryCutoverSignal,
  retryCutoverUpdate,
  rollbackSignal,
  rollbackUpdate,
} from '../../src/domain/messages';

/** What the gate needs to check a signed approval (runs from before signed approvals have no policy: names alone). */
export interface SigningContext {
  policy?: ApprovalPolicy;
  /** The wave that started this run, whose signed approvals may cover it. */
  wave?: string;
  /** The digest of the current cutover plan (undefined before the VM is assessed). */
  plan?: () => string | undefined;
}

/**
 * The human gates of a migration: approve or reject the cutover (any time before it starts, so a
 * wave can approve early), and after a failure past the shutdown, retry or roll back. A decision that
 * cannot be taken, by update or signal, is recorded in `status.ignored` instead of acted on (an update
 * is also answered with the reason; decision-handlers.ts).
 */
export class CutoverGate {
  approval?: DecisionRecord;
  /** `approve --at`: the approved cutover starts no earlier than this (epoch ms). */
  notBefore?: number;
  /** `ferry cancel`, once accepted (also shown in the status). */
  cancellation?: CancellationRecord;
  rejection?: DecisionRecord;
  /** Set while the workflow waits for a person after a failure. */
  private pending?: { decision: 'retry' | 'rollback'; record: DecisionRecord };
  private approvalOpen = true;
  private decisionOpen = false;
  /** The decisions taken now: both after a failure; only a rollback while the disks move live (overlay). */
  private decisionKinds: ReadonlyArray<'retry' | 'rollback'> = ['retry', 'rollback'];

  constructor(
    private readonly status: MigrationStatus,
    private readonly approvers: readonly string[],
    private readonly signing: SigningContext = {},
    /** live-import, overlay: a retry or rollback once the guest ran on Proxmox must acknowledge losing its writes. */
    private readonly mode?: CutoverMode,
    /** Called after a decision was refused or ignored (the run shows it in the UI's details). */
    private readonly onIgnored?: () => void,
  ) {
    this.gate(approveCutoverUpdate, approveCutoverSignal, 'approve', (r, d) => {
      this.approval = r;
      if (d.notBefore !== undefined) this.notBefore = d.notBefore;
    });
    this.gate(rejectCutoverUpdate, rejectCutoverSignal, 'reject', (r) => (this.rejection = r));
    this.gate(
      retryCutoverUpdate,
      retryCutoverSignal,
      'retry',
      (r) => (this.pending = { decision: 'retry', record: r }),
    );
    this.gate(rollbackUpdate, rollbackSignal, 'rollback', (r) => (this.pending = { decision: 'rollback', record: r }));
    handleDecision({
      kind: 'cancel',
      update: cancelMigrationUpdate,
      signal: cancelMigrationSignal,
      problem: (request) => cancelProblem(request, this.approvers, this.status.stage, this.cancellation),
      accept: (record, request) => {
        const { stage } = this.status;
        this.cancellation = {
          ...record,
          removeShells: request.removeShells === true,
          stage,
          effect: cancelEffect(stage)!,
        };
        this.status.cancellation = this.cancellation;
      },
      ignored: this.status.ignored,
      onIgnored: () => this.onIgnored?.(),
      reply: () => this.status,
    });
  }

  get decided(): boolean {
    return Boolean(this.approval || this.rejection);
  }

  /** A retry or rollback decision is waiting to be taken. */
  get hasDecision(): boolean {
    return this.pending !== undefined;
  }

  /** The cutover starts: approvals and rejections are no longer taken. */
  closeApproval(): void {
    this.approvalOpen = false;
  }

  openDecision(kinds: ReadonlyArray<'retry' | 'rollback'> = ['retry', 'rollback']): void {
    this.pending = undefined;
    this.decisionOpen = true;
    this.decisionKinds = kinds;
  }

  /** No decision is taken any more (the disks moved, or a failure's decision was made). */
  closeDecision(): void {
    this.decisionOpen = false;
  }

  takeDecision(): { decision: 'retry' | 'rollback'; record: DecisionRecord } | undefined {
    if (!this.pending) return undefined;
    this.decisionOpen = false;
    const taken = this.pending;
    const discarded = this.guestWritesAtRisk ? { discardedGuestWrites: true as const } : {};
    this.status.decisions.push({ ...taken.record, decision: taken.decision, ...discarded });
    return taken;
  }

  private problem(
    kind: 'approve' | 'reject' | 'retry' | 'rollback',
    decision: CutoverDecision | undefined,
  ): string | undefined {
    const invalid = decisionProblem(decision, this.approvers);
    if (invalid) return invalid;
    if (kind === 'approve' || kind === 'reject') {
      if (!this.approvalOpen) return `the cutover is no longer waiting for a decision (stage ${this.status.stage})`;
      if (this.approval) return `already approved by ${this.approval.by}`;
      if (this.rejection) return `already rejected by ${this.rejection.by}`;
      if (kind === 'approve')
        return notBeforeProblem(decision as CutoverApproval) ?? this.signatureProblem(decision as CutoverApproval);
    } else {
      if (!this.decisionOpen)
        return `nothing to ${kind}: the workflow is not waiting for a decision after a failure (stage ${this.status.stage})`;
      if (!this.decisionKinds.includes(kind))
        return `nothing to ${kind}: the disks are moving (stage ${this.status.stage}); a retry is for a move that failed, a rollback may come any time`;
      if (this.pending) return `already decided: ${this.pending.decision} by ${this.pending.record.by}`;
      return guestWritesProblem(kind, decision!, this.guestWritesAtRisk, this.mode);
    }
    return undefined;
  }

  private get guestWritesAtRisk(): boolean {
    return guestWritesAtRisk(this.mode, this.status);
  }

  /**
   * A signed approval names this VM's workflow and its plan, or (passed on by the wave) the VM's own wave
   * and, among the VMs it covers, this one with its plan: whoever delivers it, only the signature counts.
   */
  private signatureProblem(decision: CutoverApproval): string | undefined {
    const { policy, wave, plan } = this.signing;
    const workflowId = workflowInfo().workflowId;
    const current = plan?.();
    const scope = decision.signed?.covers
      ? { kind: 'forwarded' as const, wave, workflowId, plan: current }
      : { kind: 'workflow' as const, workflowId, plan: current };
    return signedApprovalProblem('approve-cutover', decision, policy, scope);
  }

  private gate(
    update: UpdateDefinition<MigrationStatus, [CutoverApproval]>,
    signal: SignalDefinition<[CutoverApproval]>,
    kind: 'approve' | 'reject' | 'retry' | 'rollback',
    accept: (record: DecisionRecord, decision: CutoverApproval) => void,
  ): void {
    handleDecision({
      kind,
      update,
      signal,
      problem: (decision) => this.problem(kind, decision),
      accept,
      ignored: this.status.ignored,
      onIgnored: () => this.onIgnored?.(),
      reply: () => this.status,
    });
  }
}
