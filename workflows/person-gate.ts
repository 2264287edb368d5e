import type { SignalDefinition } from '@temporalio/workflow';
import type { UpdateDefinition } from '@temporalio/common';
import { workflowInfo } from '@temporalio/workflow';
import { signedApprovalProblem, type ApprovalPolicy, type SignedAction } from '../src/domain/approvals';
import { decisionProblem } from '../src/domain/migration/approval';
import type { CutoverDecision, DecisionRecord } from '../src/domain/migration';
import { handleDecision } from './decision-handlers';
import type { IgnoredMessage } from '../src/domain/vm-run';

/** What a person gate guards and how its approval is signed. */
export interface PersonGateSpec<D extends CutoverDecision, S extends { stage: string }> {
  /** The thing decided on, as a refusal names it: `the teardown`, `the change`. */
  what: string;
  status: S & { ignored: IgnoredMessage[] };
  approvers: readonly string[];
  /** How approvals are checked: signed by the approvers' keys, or (`unsigned`) by names alone. */
  policy: ApprovalPolicy;
  approve: [UpdateDefinition<S, [D]>, SignalDefinition<[D]>];
  reject: [UpdateDefinition<S, [D]>, SignalDefinition<[D]>];
  /** Called after a decision was refused or ignored (the run shows it in the UI's details). */
  onIgnored?: () => void;
  /** The action a signed approval names, and the digest of what it was shown (undefined: nothing to show yet). */
  action: SignedAction;
  digest: (decision: D) => string | undefined;
}

/**
 * A person's approve-or-reject of one workflow (a teardown, a day-2 change): by update or the same-named
 * signal; one that cannot be taken is recorded in `status.ignored`, never acted on (decision-handlers.ts). Decisions are taken only while the gate is open; a signed approval
 * names this workflow and the digest of what its approver was shown. `toApproval` keeps what an
 * approval asks for beyond the record (a change's restart).
 */
export class PersonGate<
  D extends CutoverDecision,
  S extends { stage: string },
  A extends DecisionRecord = DecisionRecord,
> {
  approval?: A;
  rejection?: DecisionRecord;
  private open = false;

  constructor(
    private readonly spec: PersonGateSpec<D, S>,
    toApproval: (record: DecisionRecord, decision: D) => A = (record) => record as A,
  ) {
    for (const kind of ['approve', 'reject'] as const) {
      const [update, signal] = spec[kind];
      handleDecision<D, S>({
        kind,
        update,
        signal,
        problem: (decision) =>
          this.problem(decision) ?? (kind === 'approve' ? this.signatureProblem(decision) : undefined),
        accept: (record, decision) => {
          if (kind === 'approve') this.approval = toApproval(record, decision);
          else this.rejection = record;
        },
        ignored: spec.status.ignored,
        ...(spec.onIgnored ? { onIgnored: spec.onIgnored } : {}),
        reply: () => spec.status,
      });
    }
  }

  get decided(): boolean {
    return Boolean(this.approval || this.rejection);
  }

  /** The workflow waits for a decision (on what it shows now: an earlier decision is cleared). */
  openGate(): void {
    this.open = true;
    this.approval = undefined;
    this.rejection = undefined;
  }

  closeGate(): void {
    this.open = false;
  }

  private problem(decision: D | undefined): string | undefined {
    const invalid = decisionProblem(decision, this.spec.approvers);
    if (invalid) return invalid;
    if (!this.open) return `${this.spec.what} is not waiting for a decision (stage ${this.spec.status.stage})`;
    if (this.approval) return `already approved by ${this.approval.by}`;
    if (this.rejection) return `already rejected by ${this.rejection.by}`;
    return undefined;
  }

  private signatureProblem(decision: D | undefined): string | undefined {
    if (!decision) return undefined;
    return signedApprovalProblem(this.spec.action, decision, this.spec.policy, {
      kind: 'workflow',
      workflowId: workflowInfo().workflowId,
      plan: this.spec.digest(decision),
    });
  }
}
