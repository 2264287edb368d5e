import { workflowInfo } from '@temporalio/workflow';
import { signedApprovalProblem, teardownPlanDigest, type ApprovalPolicy } from '../../src/domain/approvals';
import { decisionProblem } from '../../src/domain/migration/approval';
import type { DecisionRecord } from '../../src/domain/migration/status';
import type { TeardownDecision, TeardownStatus } from '../../src/domain/provisioning';
import { handleDecision } from '../decision-handlers';
import {
  approveTeardownSignal,
  approveTeardownUpdate,
  rejectTeardownSignal,
  rejectTeardownUpdate,
} from '../../src/domain/messages';

/**
 * The human gate of a teardown: approve or reject, by a validated update (refused without a trace in
 * history) or by the same-named signal from `temporal workflow signal` (an invalid one is recorded in
 * `status.ignored`, never acted on). Decisions are taken only while the teardown waits for one.
 */
export class TeardownGate {
  approval?: DecisionRecord;
  rejection?: DecisionRecord;
  private open = false;

  constructor(
    private readonly status: TeardownStatus,
    private readonly approvers: readonly string[],
    /** How approvals are checked: signed by the approvers' keys, or (`unsigned`) by names alone. */
    private readonly policy: ApprovalPolicy,
  ) {
    for (const [kind, update, signal] of [
      ['approve', approveTeardownUpdate, approveTeardownSignal],
      ['reject', rejectTeardownUpdate, rejectTeardownSignal],
    ] as const) {
      handleDecision<TeardownDecision, TeardownStatus>({
        kind,
        update,
        signal,
        problem: (decision) =>
          this.problem(decision) ?? (kind === 'approve' ? this.signatureProblem(decision) : undefined),
        accept: (record) => {
          if (kind === 'approve') this.approval = record;
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

  openGate(): void {
    this.open = true;
  }

  closeGate(): void {
    this.open = false;
  }

  /** A signed approval names this teardown's workflow and the digest of the target it was shown. */
  private signatureProblem(decision: TeardownDecision | undefined): string | undefined {
    if (!decision) return undefined;
    const plan = this.status.target && teardownPlanDigest(this.status.target);
    return signedApprovalProblem('approve-teardown', decision, this.policy, {
      kind: 'workflow',
      workflowId: workflowInfo().workflowId,
      plan,
    });
  }

  private problem(decision: TeardownDecision | undefined): string | undefined {
    const invalid = decisionProblem(decision, this.approvers);
    if (invalid) return invalid;
    if (!this.open) return `the teardown is not waiting for a decision (stage ${this.status.stage})`;
    if (this.approval) return `already approved by ${this.approval.by}`;
    if (this.rejection) return `already rejected by ${this.rejection.by}`;
    return undefined;
  }
}
