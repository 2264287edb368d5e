import { z } from 'zod';
import type { ApprovalPolicy } from '../domain/approvals';

/**
 * Approvers as ferry.yaml lists them (migration.approvers, provisioning.approvers): `{ name, key }` with
 * an ed25519 public key, or a plain name where `approvals: unsigned` allows one.
 */
export const approverEntry = z.union([
  z.string().min(1),
  z
    .object({
      name: z.string().min(1),
      /** `ssh-ed25519 AAAA… comment` (a line of ~/.ssh/id_ed25519.pub) or a raw ed25519 key (base64 or hex). */
      key: z.string().superRefine((key, ctx) => {
        // Required here, not at the top: the key parser brings @noble/curves, which a CLI command that
        // reads ferry.yaml (`ferry status`) should not load unless an approver's key is there to check.
        const { parsePublicKey } =
          require('../domain/approvals/ssh-signature') as typeof import('../domain/approvals/ssh-signature');
        const parsed = parsePublicKey(key);
        if ('problem' in parsed) ctx.addIssue({ code: 'custom', message: parsed.problem });
      }),
    })
    .strict(),
]);
export type ApproverEntry = z.infer<typeof approverEntry>;

/** `signed` (the default): every approval carries the approver's signature; `unsigned`: a listed name is enough. */
export const approvalMode = z.enum(['signed', 'unsigned']).default('signed');

/** Under `signed` every approver needs a key: a section's refinement (runs even when other keys have type errors). */
export function approversNeedKeys(section: string) {
  return (s: { approvals?: unknown; approvers?: unknown }, ctx: z.RefinementCtx): void => {
    if (
      typeof s !== 'object' ||
      s === null ||
      !Array.isArray(s.approvers) ||
      (s.approvals !== undefined && s.approvals !== 'signed')
    )
      return;
    s.approvers.forEach((entry: unknown, i) => {
      if (typeof entry !== 'string') return;
      ctx.addIssue({
        code: 'custom',
        path: ['approvers', i],
        message: `${entry} has no key: ${section}.approvals is signed (the default), so each approver is { name, key } with an ed25519 public key; or set ${section}.approvals: unsigned`,
      });
    });
  };
}

export function approverNames(entries: readonly ApproverEntry[]): string[] {
  return [...new Set(entries.map((e) => (typeof e === 'string' ? e : e.name)))];
}

/** What a run carries to check approvals: the mode and every listed public key. */
export function approvalPolicy(mode: 'signed' | 'unsigned', entries: readonly ApproverEntry[]): ApprovalPolicy {
  return { mode, keys: entries.flatMap((e) => (typeof e === 'string' ? [] : [{ name: e.name, key: e.key.trim() }])) };
}
