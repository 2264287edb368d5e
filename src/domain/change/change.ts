import type { SlotNicSpec } from '../pve-vm-spec';
import type { FieldKind, NicField } from './fields';

/**
 * One difference between NetBox and a Proxmox VM, as the change plan states it: what differs, which
 * side moved, what Proxmox does with it (its class, by qemu-server's rules) and the typed operation
 * ferry sends for it. The workflow records what it did in this same form.
 */

/**
 * - `live`: Proxmox applies it to the running VM at once (or the VM is stopped: every config write applies at once);
 * - `at-restart`: written, pending until the VM is next started (stop + start, or a reboot through Proxmox);
 * - `needs-stop`: only safe with the VM stopped (a live write would hot-unplug memory or vCPUs the guest may refuse);
 * - `move`: a disk copied to another storage while the VM runs (its source kept as unusedN unless the policy deletes it);
 * - `detach`: a disk gone from NetBox, detached to unusedN (never deleted);
 * - `refused`: ferry will not, with the reason;
 * - `reported`: drift the policy reports without changing anything.
 */
export type ChangeClass = 'live' | 'at-restart' | 'needs-stop' | 'move' | 'detach' | 'refused' | 'reported';

/** Who moved: NetBox (an edit), Proxmox (a change by hand), or both (to different values). */
export type ChangeSide = 'netbox' | 'proxmox' | 'both';

/** What ferry sends for a change; src/proxmox turns these (grouped, see steps.ts) into API parameters. */
export type ChangeOperation =
  | { op: 'set-cpu'; cores?: number; vcpus?: number; deleteVcpus?: true }
  | { op: 'set-memory'; memoryMiB: number }
  /** Drops the pending values of these keys (the VM keeps its current ones). */
  | { op: 'revert'; keys: string[] }
  /** A new, empty disk (`import-from` only ever at creation): `<storage>:<sizeGiB>`. */
  | { op: 'add-disk'; slot: string; storage: string; sizeGiB: number; options: Record<string, string> }
  /** One option of an attached disk; no value: the option is removed. */
  | { op: 'set-disk-option'; slot: string; key: string; value?: string }
  /** `PUT …/resize` to an absolute size with its suffix (`32G`). */
  | { op: 'resize-disk'; slot: string; size: string; sizeBytes: number }
  | { op: 'move-disk'; slot: string; storage: string; deleteSource: boolean; sourceVolume: string }
  /** A delete without `force`: Proxmox keeps the volume as unusedN. */
  | { op: 'detach-disk'; slot: string; volume: string }
  | { op: 'add-nic'; nic: SlotNicSpec }
  /** One field of a NIC; no value: the option is removed. The MAC is kept unless this is the MAC. */
  | { op: 'set-nic-field'; slot: string; field: NicField; value?: string }
  | { op: 'remove-nic'; slot: string };

export interface PlannedChange {
  /** Stable: `vcpus`, `memory`, `scsi1` (the disk itself), `scsi1.size`, `scsi1.iothread`, `net0`, `net0.tag`. */
  id: string;
  kind: FieldKind;
  /** The disk or NIC slot. */
  slot?: string;
  /** Proxmox's value now (as the VM runs); absent: not set. Canonical text: MiB, bytes, `1` for a flag. */
  from?: string;
  /** The value ferry makes it (NetBox's); absent: removed. For a reported change: NetBox's value. */
  to?: string;
  /** The value waiting in Proxmox's pending, when it differs from `from`. */
  pending?: string;
  /** Proxmox has a pending deletion of it. */
  pendingDelete?: true;
  side: ChangeSide;
  class: ChangeClass;
  /** Why this class, in words a person can act on. */
  why: string;
  /** Where the rule is: the upstream source (`PVE/QemuServer.pm vmconfig_update_net`) or ferry's policy. */
  rule: string;
  /** Absent for refused and reported changes. */
  operation?: ChangeOperation;
  /** The change takes effect only at the VM's next start (at-restart, or a detach the VM cannot hot-unplug). */
  waitsForRestart: boolean;
  /** Proxmox already holds exactly this in pending: it is written again only with another change of its key (steps.ts). */
  alreadyPending?: boolean;
}

/** A hand change in Proxmox the policy keeps (handDrift `proxmox`) until NetBox's value moves. */
export interface AcceptedDrift {
  id: string;
  kind: FieldKind;
  netbox?: string;
  proxmox?: string;
}

/** The classes that change something in Proxmox. */
export const ACTING_CLASSES: ReadonlySet<ChangeClass> = new Set(['live', 'at-restart', 'needs-stop', 'move', 'detach']);

export function acts(change: PlannedChange): boolean {
  return ACTING_CLASSES.has(change.class);
}
