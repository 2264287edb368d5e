import { workflowInfo } from '@temporalio/workflow';
import { changePlanDigest, signedApprovalProblem, type ApprovalPolicy } from '../../src/domain/approvals';
import type { ChangeDecision, ChangeStatus } from '../../src/domain/change-vm';
import { decisionProblem } from '../../src/domain/migration/approval';
import type { DecisionRecord } from '../../src/domain/migration/status';
import {
  approveChangeSignal,
  approveChangeUpdate,
  rejectChangeSignal,
  rejectChangeUpdate,
} from '../../src/domain/messages';
import { handleDecision } from '../decision-handlers';

/**
 * The human gate of a day-2 change: the changes that wait for a restart (or need the VM stopped) are
 * written only once a person approves them (or inside the maintenance window), and ferry restarts the
 * VM only when the approval asks for it. By a validated update, or the same-named signal (an invalid one
 * is recorded in `status.ignored`). Decisions are taken only while the run waits for one; a signed
 * approval names this workflow and the plan's gated changes with the restart choice.
 */
export class ChangeGate {
  approval?: DecisionRecord & { restart?: boolean };
  rejection?: DecisionRecord;
  private open = false;

  constructor(
    private readonly status: ChangeStatus,
    private readonly approvers: readonly string[],
    private readonly policy: ApprovalPolicy,
  ) {
    for (const [kind, update, signal] of [
      ['approve', approveChangeUpdate, approveChangeSignal],
      ['reject', rejectChangeUpdate, rejectChangeSignal],
    ] as const) {
      handleDecision<ChangeDecision, ChangeStatus>({
        kind,
        update,
        signal,
        problem: (decision) =>
          this.problem(decision) ?? (kind === 'approve' ? this.signatureProblem(decision) : undefined),
        accept: (record, decision) => {
          if (kind === 'approve') this.approval = { ...record, ...(decision.restart ? { restart: true } : {}) };
          else this.rejection = record;
        },
        ignored: this.status.ignored,
        reply: () => this.status,
      });
    }
  }

  get decided(): boolean {
    return Boolean(this.approval || this.rejection);
  }

  /** The run waits for a decision on this plan (a plan made again clears an earlier one's decision). */
  openGate(): void {
    this.open = true;
    this.approval = undefined;
    this.rejection = undefined;
  }

  closeGate(): void {
    this.open = false;
  }

  private problem(decision: ChangeDecision | undefined): string | undefined {
    const invalid = decisionProblem(decision, this.approvers);
    if (invalid) return invalid;
    if (!this.open) return `the change is not waiting for a decision (stage ${this.status.stage})`;
    if (this.approval) return `already approved by ${this.approval.by}`;
    if (this.rejection) return `already rejected by ${this.rejection.by}`;
    return undefined;
  }

  private signatureProblem(decision: ChangeDecision | undefined): string | undefined {
    if (!decision) return undefined;
    const plan = this.status.plan && changePlanDigest(this.status.plan, decision.restart === true);
    return signedApprovalProblem('approve-change', decision, this.policy, {
      kind: 'workflow',
      workflowId: workflowInfo().workflowId,
      plan,
    });
  }
}
