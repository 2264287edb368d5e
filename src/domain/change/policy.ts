import type { FieldKind } from './fields';

/**
 * What ferry does with a difference it did not cause, and with the disks a change leaves behind
 * (ferry.yaml `change`, checked by policy-schema.ts; src/config/change.ts puts it in the config).
 *
 * - `handDrift`: a field changed in Proxmox by hand (NetBox did not move): `report` (change nothing),
 *   `netbox` (put NetBox's value back) or `proxmox` (keep the hand change until NetBox's value moves);
 *   a default and a choice per field kind.
 * - `conflict`: both moved, to different values: `report`, or `netbox` (NetBox's value wins).
 * - `allowMacChange`: a NIC's MAC changes only when NetBox's MAC itself changed and this is on (the
 *   guest sees a new NIC); never to undo a hand change.
 * - `movedDiskSource`: after a move, the source volume stays as unusedN (`keep`) or is deleted.
 * - `removedDisk`: a disk gone from NetBox is detached to unusedN; deleting one needs an approval, never a plan.
 */
export const HAND_DRIFT_CHOICES = ['report', 'netbox', 'proxmox'] as const;
export type HandDriftChoice = (typeof HAND_DRIFT_CHOICES)[number];

export interface ChangePolicy {
  handDrift: { default: HandDriftChoice; fields: Partial<Record<FieldKind, HandDriftChoice>> };
  conflict: 'report' | 'netbox';
  allowMacChange: boolean;
  movedDiskSource: 'keep' | 'delete';
  removedDisk: 'detach';
}

/** The hand-drift choice for a field kind. */
export function handDriftFor(policy: ChangePolicy, kind: FieldKind): HandDriftChoice {
  return policy.handDrift.fields[kind] ?? policy.handDrift.default;
}
