import { refusal, type Refusal } from './refusal';

/** PVE accepts VMIDs 100 … 999,999,999. */
export const PVE_VMID_MIN = 100;
export const PVE_VMID_MAX = 999_999_999;

export type VmidResult = { ok: true; vmid: number } | { ok: false; refusal: Refusal };

/**
 * VMID of a migrated VM: `vmidBase` + the numeric part of its vCenter moid (`vm-42` → base + 42).
 * Stable across reruns and replays, unlike `nextid`, which reserves nothing.
 */
export function vmidFromMoid(moid: string, vmidBase: number): VmidResult {
  const match = /^vm-(\d+)$/.exec(moid);
  if (!match) {
    return {
      ok: false,
      refusal: refusal('vmid-invalid', moid, `moid "${moid}" is not of the form vm-<number>; no VMID can be derived from it`),
    };
  }
  const vmid = vmidBase + Number(match[1]);
  if (!Number.isSafeInteger(vmid) || vmid < PVE_VMID_MIN || vmid > PVE_VMID_MAX) {
    return {
      ok: false,
      refusal: refusal(
        'vmid-invalid',
        moid,
        `vmidBase ${vmidBase} + ${match[1]} = ${vmid} is outside Proxmox's VMID range ${PVE_VMID_MIN}–${PVE_VMID_MAX}`,
      ),
    };
  }
  return { ok: true, vmid };
}

/** What an existing Proxmox VM at the wanted VMID means for a migration or provision. */
export type VmidOccupancy =
  | { kind: 'free' }
  /** A VM with this VMID and this name: ferry made it earlier; continue from it. */
  | { kind: 'adopt' }
  | { kind: 'clash'; refusal: Refusal };

export function vmidOccupancy(
  vmid: number,
  name: string,
  existing: ReadonlyArray<{ vmid: number; name?: string }>,
): VmidOccupancy {
  const sameId = existing.find((vm) => vm.vmid === vmid);
  if (sameId) {
    if (sameId.name === name) return { kind: 'adopt' };
    return {
      kind: 'clash',
      refusal: refusal(
        'vmid-clash',
        name,
        `VMID ${vmid} already belongs to Proxmox VM "${sameId.name ?? '(no name)'}", not "${name}"; change vmidBase or remove that VM`,
      ),
    };
  }
  const sameName = existing.filter((vm) => vm.name === name);
  if (sameName.length > 0) {
    return {
      kind: 'clash',
      refusal: refusal(
        'vmid-clash',
        name,
        `a Proxmox VM named "${name}" already exists as VMID ${sameName.map((vm) => vm.vmid).join(', ')}, not ${vmid}; rename or remove it first`,
      ),
    };
  }
  return { kind: 'free' };
}
