import type { PlacementRefusalCode } from '../placement/types';

/**
 * Why ferry will not migrate something (or not automatically). Refusals are decided before anything is
 * built, listed by `plan` and `ferry discover`, and stop only the VM they concern.
 */
export type RefusalCode =
  | 'template'
  | 'snapshot'
  | 'independent-disk'
  | 'rdm'
  | 'nic-standard-network'
  | 'nic-opaque-network'
  | 'nic-unknown-portgroup'
  | 'nic-no-vnet'
  | 'vmid-invalid'
  | 'vmid-clash'
  | 'disk-unmapped-datastore'
  | 'disk-path-invalid'
  | 'cpu-invalid'
  /** A virtual TPM, and `migration.tpm` is not `new`. */
  | 'vtpm'
  /** The VM's disks or NICs changed between planning and cutover. */
  | 'vm-changed'
  /** The VM is suspended at cutover: ferry does not power off a suspended guest. */
  | 'vm-suspended'
  /** The VM (or its wave) does not fit the Proxmox nodes, storages or the migration datastore. */
  | PlacementRefusalCode;

export interface Refusal {
  code: RefusalCode;
  /** What it is about, e.g. `Network adapter 2 (PG-TRUNK)` or `Hard disk 1`. */
  subject: string;
  /** A sentence a person can act on. */
  reason: string;
}

export function refusal(code: RefusalCode, subject: string, reason: string): Refusal {
  return { code, subject, reason };
}

/** A VM's refusals as one line for the views that show one line per VM (the wave's rows, `--watch`). */
export function refusalSummary(refusals: readonly Refusal[], note?: string): string {
  return [...refusals.map((r) => r.reason), ...(note ? [note] : [])].join('; ');
}
