import { occupancy, PVE_VMID_MAX, PVE_VMID_MIN } from '../vmid';
import { refusal, type Refusal } from './refusal';

export { PVE_VMID_MAX, PVE_VMID_MIN };

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
      refusal: refusal(
        'vmid-invalid',
        moid,
        `moid "${moid}" is not of the form vm-<number>; no VMID can be derived from it`,
      ),
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

/** What an existing Proxmox VM at the wanted VMID means for a migration. */
export type VmidOccupancy =
  | { kind: 'free' }
  /** A VM with this VMID and this name: ferry made it earlier; continue from it. */
  | { kind: 'adopt' }
  | { kind: 'clash'; refusal: Refusal };

/** The shared rule (src/domain/vmid.ts), worded for a migration. */
export function vmidOccupancy(
  vmid: number,
  name: string,
  existing: ReadonlyArray<{ vmid: number; name?: string }>,
): VmidOccupancy {
  const found = occupancy(vmid, name, existing);
  if (found.kind !== 'clash') return found;
  const { clash } = found;
  const reason =
    clash.kind === 'vmid-taken'
      ? `VMID ${vmid} already belongs to Proxmox VM "${clash.holder ?? '(no name)'}", not "${name}"; change vmidBase or remove that VM`
      : `a Proxmox VM named "${name}" already exists as VMID ${clash.vmids.join(', ')}, not ${vmid}; rename or remove it first`;
  return { kind: 'clash', refusal: refusal('vmid-clash', name, reason) };
}

/** What the Temporal UI shows for a VM's migration workflow: `mig-web01 → VM 20074 on pve1`. */
export function vmWorkflowSummary(
  name: string,
  moid: string,
  settings: { node: string; rules: { vmidBase: number } },
): string {
  const vmid = vmidFromMoid(moid, settings.rules.vmidBase);
  return `${name} → ${vmid.ok ? `VM ${vmid.vmid}` : 'no VMID'} on ${settings.node}`;
}
