import { sha256 } from '@noble/hashes/sha2';
import { toHex, utf8 } from './bytes';
import { stableJson } from './stable-json';

/**
 * What a signed approval says, byte for byte: the CLI signs it and the workflow rebuilds it from the
 * approval it receives and checks the signature over it. Only public keys and signatures travel;
 * the private key never leaves the approver's machine.
 */

/** `signed`: every approval must carry an approver's signature; `unsigned`: a listed name is enough. */
export type ApprovalMode = 'signed' | 'unsigned';

/** One approver's public key (a person may have several entries, one per key). */
export interface ApproverKey {
  name: string;
  /** As ferry.yaml gives it: `ssh-ed25519 AAAA…` or a raw ed25519 key (base64 or hex). */
  key: string;
}

/** How a run checks approvals; a run that carries none (started before signed approvals) takes names alone. */
export interface ApprovalPolicy {
  mode: ApprovalMode;
  keys: ApproverKey[];
}

export type SignedAction = 'approve-cutover' | 'approve-teardown' | 'approve-change';

/** A VM workflow a wave approval covers, with the digest of the plan the approver was shown. */
export interface CoveredVm {
  workflowId: string;
  plan: string;
}

/** The signed part of an approval, sent with `by` and `reason`. */
export interface ApprovalSignature {
  /** The workflow approved: the VM's (or the teardown's) own, or the wave's. */
  workflowId: string;
  /** The digest of the plan shown (one VM's cutover, or a teardown's target). */
  plan?: string;
  /** A wave approval: each VM covered, with its plan's digest. */
  covers?: CoveredVm[];
  /** An armored SSHSIG (`ssh-keygen -Y sign -n ferry-approval`) or a raw ed25519 signature (base64). */
  signature: string;
}

/** The text that is signed: stable JSON of the action, who, why, which workflow and which plan. */
export function approvalStatement(
  action: SignedAction,
  by: string,
  reason: string,
  signed: Omit<ApprovalSignature, 'signature'>,
): string {
  return stableJson({
    ferry: 'approval/1',
    action,
    by,
    reason,
    workflowId: signed.workflowId,
    plan: signed.plan,
    covers: signed.covers,
  });
}

/** `sha256:<hex>` of the stable JSON of a plan. */
export function planDigest(plan: unknown): string {
  return `sha256:${toHex(sha256(utf8(stableJson(plan))))}`;
}
