import type { ApprovalSignature } from '../approvals/statement';

/** A person's decision on a cutover, recorded in history and in the result. */
export interface CutoverDecision {
  by: string;
  reason: string;
  /**
   * A retry or rollback after a live import started acknowledges that what the guest wrote on Proxmox
   * is discarded (required then; see guest-writes.ts).
   */
  discardGuestWrites?: boolean;
}

/**
 * The one payload of `approveCutover`, to a VM's workflow or to a wave: a wave approves the VMs named
 * in `vms` (all when absent); a VM's workflow approves itself and takes no `vms`.
 */
export interface CutoverApproval extends SignedDecision {
  vms?: string[];
  /** `ferry approve --at`: the cutover starts no earlier than this instant (epoch ms), and inside the wave's window if it has one. */
  notBefore?: number;
}

/**
 * An approval that may carry its approver's signature (required under `approvals: signed`): over the
 * workflow id and the digest of the plan shown, or, for a wave, the VMs it covers with their plans.
 */
export interface SignedDecision extends CutoverDecision {
  signed?: ApprovalSignature;
}

/** Why an approval or rejection is refused, or undefined when it is acceptable. */
export function decisionProblem(
  decision: Partial<CutoverDecision> | undefined,
  approvers: readonly string[],
): string | undefined {
  if (!decision || typeof decision !== 'object') return 'expected { by, reason }';
  if (typeof decision.by !== 'string' || decision.by.trim() === '') return 'say who decides: "by" is required';
  if (!approvers.includes(decision.by)) return `${decision.by} is not an approver (approvers: ${approvers.join(', ')})`;
  if (typeof decision.reason !== 'string' || decision.reason.trim() === '') return 'a reason is required';
  return undefined;
}

/** Why an approval's `notBefore` (`approve --at`) is unusable, or undefined when it is absent or an instant. */
export function notBeforeProblem(approval: Pick<CutoverApproval, 'notBefore'>): string | undefined {
  const { notBefore } = approval;
  if (notBefore === undefined) return undefined;
  return typeof notBefore === 'number' && Number.isFinite(notBefore)
    ? undefined
    : 'notBefore: expected an instant (epoch milliseconds)';
}
