/**
 * VMIDs and what an existing Proxmox VM at a wanted VMID means. Shared by migration and provisioning:
 * each words its own refusal (what to change differs), the rule is the same.
 */

/** PVE accepts VMIDs 100 … 999,999,999. */
export const PVE_VMID_MIN = 100;
export const PVE_VMID_MAX = 999_999_999;

/** Why a VMID and a name cannot be used together. */
export type VmidClash =
  /** The VMID belongs to a Proxmox VM with another name. */
  | { kind: 'vmid-taken'; vmid: number; name: string; holder?: string }
  /** A Proxmox VM with this name exists under other VMIDs (names are labels, so maybe several). */
  | { kind: 'name-taken'; vmid: number; name: string; vmids: number[] };

/** What an existing Proxmox VM at the wanted VMID means for a workflow that builds one. */
export type Occupancy =
  | { kind: 'free' }
  /** A VM with this VMID and this name: ferry made it earlier; continue from it. */
  | { kind: 'adopt' }
  | { kind: 'clash'; clash: VmidClash };

/**
 * The one rule: same VMID and same name → adopt; the VMID with another name, or the name on another
 * VMID → clash; neither → free.
 */
export function occupancy(
  vmid: number,
  name: string,
  existing: ReadonlyArray<{ vmid: number; name?: string }>,
): Occupancy {
  const sameId = existing.find((vm) => vm.vmid === vmid);
  if (sameId) {
    if (sameId.name === name) return { kind: 'adopt' };
    return {
      kind: 'clash',
      clash: { kind: 'vmid-taken', vmid, name, ...(sameId.name !== undefined ? { holder: sameId.name } : {}) },
    };
  }
  const sameName = existing.filter((vm) => vm.name === name);
  if (sameName.length > 0)
    return { kind: 'clash', clash: { kind: 'name-taken', vmid, name, vmids: sameName.map((vm) => vm.vmid) } };
  return { kind: 'free' };
}
