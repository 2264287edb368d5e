import { parsePublicKey, signatureProblem } from './ssh-signature';
import {
  approvalStatement,
  type ApprovalPolicy,
  type ApprovalSignature,
  type CoveredVm,
  type SignedAction,
} from './statement';

/** An approval as it arrives: who, why, and (when signed) the signature and what it covers. */
export interface SignableDecision {
  by: string;
  reason: string;
  signed?: ApprovalSignature;
}

/** What the receiving workflow expects the signature to cover. */
export type SignatureScope =
  /** An approval of this workflow (a VM's cutover, a teardown) and of its current plan. */
  | { kind: 'workflow'; workflowId: string; plan: string | undefined }
  /** A wave's approval passed on to one of its VMs: signed for the wave, covering this VM and its plan. */
  | { kind: 'forwarded'; wave: string | undefined; workflowId: string; plan: string | undefined }
  /** A wave's approval at the wave: signed for it, covering only VMs of the wave (each checks its plan). */
  | { kind: 'wave'; workflowId: string; vms: readonly string[] };

/**
 * Why a signed approval (or the lack of a signature) is refused, or undefined when it may be taken.
 * Under `signed` every approval needs a signature; under `unsigned` (or a run from before signed
 * approvals: no policy) none is needed, but one that is given must be right.
 */
export function signedApprovalProblem(
  action: SignedAction,
  decision: SignableDecision,
  policy: ApprovalPolicy | undefined,
  scope: SignatureScope,
): string | undefined {
  const { signed } = decision;
  if (signed === undefined || signed === null) {
    if (policy?.mode !== 'signed') return undefined;
    return `approvals are signed here: ${decision.by}'s approval has no signature (ferry approve --key <ssh key>)`;
  }
  if (typeof signed !== 'object' || typeof signed.signature !== 'string' || typeof signed.workflowId !== 'string') {
    return 'malformed signed approval: expected { workflowId, plan or covers, signature }';
  }
  const keys = (policy?.keys ?? []).filter((k) => k.name === decision.by);
  if (keys.length === 0)
    return `${decision.by} has no public key among the approvers, so no signature of theirs can be checked`;
  const statement = approvalStatement(action, decision.by, decision.reason, signed);
  const problems = keys.map((k) => {
    const parsed = parsePublicKey(k.key);
    return 'problem' in parsed ? parsed.problem : signatureProblem(statement, signed.signature, parsed.key);
  });
  if (problems.every((p) => p !== undefined)) return `the signature is not ${decision.by}'s: ${problems[0]}`;
  return scopeProblem(signed, scope);
}

function scopeProblem(signed: ApprovalSignature, scope: SignatureScope): string | undefined {
  const expectedId = scope.kind === 'forwarded' ? scope.wave : scope.workflowId;
  if (signed.workflowId !== expectedId) {
    const mine =
      scope.kind === 'forwarded' ? `this VM's wave (${scope.wave ?? 'none'})` : `this workflow (${scope.workflowId})`;
    return `signed for ${signed.workflowId}, not for ${mine}`;
  }
  const covers = coveredVms(signed.covers);
  if (covers === undefined) return 'malformed signed approval: covers is a list of { workflowId, plan }';
  if (scope.kind === 'wave') {
    if (covers.length === 0) return 'a signed wave approval names the VMs it covers, with their plans: none named';
    const strangers = covers.filter((c) => !scope.vms.includes(c.workflowId)).map((c) => c.workflowId);
    return strangers.length > 0 ? `not VMs of this wave: ${strangers.join(', ')}` : undefined;
  }
  const signedPlan =
    scope.kind === 'workflow' ? signed.plan : covers.find((c) => c.workflowId === scope.workflowId)?.plan;
  if (signedPlan === undefined) {
    return scope.kind === 'workflow'
      ? 'the signature names no plan'
      : `the signed wave approval does not cover this VM (${scope.workflowId})`;
  }
  if (scope.plan === undefined) return 'there is no plan to approve yet';
  if (signedPlan !== scope.plan) {
    return `the plan changed since it was signed (signed ${signedPlan}, now ${scope.plan}): look at it again and sign anew`;
  }
  return undefined;
}

/** The covered VMs, checked entry by entry (a signal's payload is whatever the sender made it); undefined when malformed. */
function coveredVms(covers: unknown): CoveredVm[] | undefined {
  if (covers === undefined) return [];
  if (!Array.isArray(covers)) return undefined;
  const valid = covers.every((c: unknown) => {
    const entry = c as Partial<CoveredVm> | null;
    return (
      typeof entry === 'object' &&
      entry !== null &&
      typeof entry.workflowId === 'string' &&
      typeof entry.plan === 'string'
    );
  });
  return valid ? (covers as CoveredVm[]) : undefined;
}
