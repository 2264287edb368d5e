import type { Nic } from '../pve-nic';
import type { SlotNicSpec } from '../pve-vm-spec';
import { acts, type ChangeOperation, type PlannedChange } from './change';
import type { NicField } from './fields';
import type { RealityViews } from './reality';

/**
 * A plan's operations grouped into as few Proxmox requests as they can be: every live config key in
 * one config write, every key that waits for the restart in another, the needs-stop keys in a third
 * (sent while the VM is stopped), and one request per moved and per grown disk. The workflow sends
 * them in this order: live, moves, resizes, then (gated) restart and stopped; the Proxmox client turns
 * each into API parameters.
 */

/** Options of an attached disk to set or remove, merged by the client onto the drive as it is when written. */
export interface DiskOptionEdit {
  set: Record<string, string>;
  unset: string[];
}

export interface NewDisk {
  storage: string;
  sizeGiB: number;
  options: Record<string, string>;
}

/** One config write (`PUT`/`POST …/config`; POST when it allocates a disk). */
export interface ConfigWrite {
  /** The change ids it carries. */
  changes: string[];
  cores?: number;
  vcpus?: number;
  memory?: number;
  /** New NICs (no MAC: Proxmox makes one). */
  addNics: Record<string, SlotNicSpec>;
  /** Whole values of NICs that change, MAC and unmanaged options kept. */
  setNics: Record<string, Nic>;
  newDisks: Record<string, NewDisk>;
  diskOptions: Record<string, DiskOptionEdit>;
  /** Keys removed (`vcpus`, `net1`). */
  delete: string[];
  /** Disk slots detached: a delete without `force`, the volume kept as unusedN. */
  detach: string[];
  /** Keys whose pending value is dropped. */
  revert: string[];
}

export interface MoveStep {
  change: string;
  slot: string;
  storage: string;
  deleteSource: boolean;
  sourceVolume: string;
}

export interface ResizeStep {
  change: string;
  slot: string;
  /** Absolute, with its suffix (`32G`). */
  size: string;
  sizeBytes: number;
}

export interface ApplySteps {
  live?: ConfigWrite;
  moves: MoveStep[];
  resizes: ResizeStep[];
  /** Waits for an approval or a window: written, then pending until the VM's next start. */
  restart?: ConfigWrite;
  /** Sent only while the VM is stopped (an approval, and ferry stops and starts the VM). */
  stopped?: ConfigWrite;
}

type WriteGroup = 'live' | 'restart' | 'stopped';

/** The group a change's operation goes to, or undefined (moves and resizes are steps of their own). */
function groupOf(change: PlannedChange): WriteGroup | undefined {
  if (change.operation?.op === 'move-disk' || change.operation?.op === 'resize-disk') return undefined;
  if (change.class === 'needs-stop') return 'stopped';
  return change.waitsForRestart ? 'restart' : 'live';
}

export function applySteps(changes: readonly PlannedChange[], views: RealityViews): ApplySteps {
  const acting = changes.filter((c) => acts(c) && c.operation);
  const steps: ApplySteps = { moves: [], resizes: [] };
  for (const c of acting) {
    const op = c.operation!;
    if (op.op === 'move-disk')
      steps.moves.push({
        change: c.id,
        slot: op.slot,
        storage: op.storage,
        deleteSource: op.deleteSource,
        sourceVolume: op.sourceVolume,
      });
    if (op.op === 'resize-disk')
      steps.resizes.push({ change: c.id, slot: op.slot, size: op.size, sizeBytes: op.sizeBytes });
  }
  for (const group of ['live', 'restart', 'stopped'] as const) {
    const members = acting.filter((c) => groupOf(c) === group);
    const write = configWrite(members, views);
    if (write) steps[group] = write;
  }
  return steps;
}

function emptyWrite(): ConfigWrite {
  return { changes: [], addNics: {}, setNics: {}, newDisks: {}, diskOptions: {}, delete: [], detach: [], revert: [] };
}

/** The write of a group; a key whose changes Proxmox already all holds in pending is not written again. */
function configWrite(members: readonly PlannedChange[], views: RealityViews): ConfigWrite | undefined {
  const write = emptyWrite();
  const byKey = new Map<string, PlannedChange[]>();
  for (const c of members) byKey.set(keyOf(c.operation!), [...(byKey.get(keyOf(c.operation!)) ?? []), c]);
  for (const group of byKey.values()) {
    if (group.every((c) => c.alreadyPending)) continue;
    for (const c of group) addOperation(write, c.operation!, views);
    write.changes.push(...group.map((c) => c.id));
  }
  return write.changes.length > 0 ? write : undefined;
}

/** The config key an operation writes (a NIC's or disk's fields share their slot). */
function keyOf(op: ChangeOperation): string {
  switch (op.op) {
    case 'set-cpu':
      return 'cpu';
    case 'set-memory':
      return 'memory';
    case 'revert':
      return `revert:${op.keys.join(',')}`;
    case 'add-nic':
      return op.nic.slot;
    default:
      return op.slot;
  }
}

function addOperation(write: ConfigWrite, op: ChangeOperation, views: RealityViews): void {
  switch (op.op) {
    case 'set-cpu':
      if (op.cores !== undefined) write.cores = op.cores;
      if (op.vcpus !== undefined) write.vcpus = op.vcpus;
      if (op.deleteVcpus) write.delete.push('vcpus');
      return;
    case 'set-memory':
      write.memory = op.memoryMiB;
      return;
    case 'revert':
      write.revert.push(...op.keys);
      return;
    case 'add-nic':
      write.addNics[op.nic.slot] = op.nic;
      return;
    case 'remove-nic':
      write.delete.push(op.slot);
      return;
    case 'set-nic-field':
      write.setNics[op.slot] = withNicField(write.setNics[op.slot] ?? baseNic(op.slot, views), op.field, op.value);
      return;
    default:
      addDiskOperation(write, op);
  }
}

function addDiskOperation(write: ConfigWrite, op: ChangeOperation): void {
  if (op.op === 'add-disk') write.newDisks[op.slot] = { storage: op.storage, sizeGiB: op.sizeGiB, options: op.options };
  if (op.op === 'detach-disk') write.detach.push(op.slot);
  if (op.op === 'set-disk-option') {
    const edit = (write.diskOptions[op.slot] ??= { set: {}, unset: [] });
    if (op.value === undefined) edit.unset.push(op.key);
    else edit.set[op.key] = op.value;
  }
}

/** The NIC a field change starts from: as it runs, or (not plugged yet) as it waits in pending. */
function baseNic(slot: string, views: RealityViews): Nic {
  const nic = views.current.nics.get(slot) ?? views.effective.nics.get(slot);
  if (!nic) throw new Error(`no NIC ${slot} to change`);
  return { model: nic.model, macaddr: nic.mac, options: { ...nic.options } };
}

const NIC_OPTION_KEY: Record<Exclude<NicField, 'mac'>, string> = {
  bridge: 'bridge',
  tag: 'tag',
  trunks: 'trunks',
  mtu: 'mtu',
  rate: 'rate',
  queues: 'queues',
  link_down: 'link_down',
  firewall: 'firewall',
};

function withNicField(nic: Nic, field: NicField, value: string | undefined): Nic {
  if (field === 'mac') return { ...nic, macaddr: value ?? nic.macaddr };
  const options = { ...nic.options };
  if (value === undefined) delete options[NIC_OPTION_KEY[field]];
  else options[NIC_OPTION_KEY[field]] = value;
  return { ...nic, options };
}

/** The Proxmox requests the steps cost beyond the reads: one per config write, move and resize. */
export function stepRequests(steps: ApplySteps): number {
  const writes = [steps.live, steps.restart, steps.stopped].filter(Boolean).length;
  return writes + steps.moves.length + steps.resizes.length;
}
