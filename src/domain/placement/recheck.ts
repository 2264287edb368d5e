import { compareCodeUnits } from '../order';
import { cpuRefusal, memoryRefusal, roomKey, storageKindRefusal, storageRefusal } from './capacity';
import { DEFAULT_MAX_MEMORY_COMMIT } from './place';
import { formatBytes } from './units';
import type { PlacedVm, PlacementNode, PlacementRefusal, PlacementStorage, PlacementVm } from './types';

export interface CutoverRecheckInput {
  /** The VM as vCenter reports it now. */
  vm: Pick<PlacementVm, 'name' | 'memoryBytes' | 'cpus' | 'disks'>;
  /** Where planning put it. */
  placed: Pick<PlacedVm, 'node' | 'disks'>;
  /** Fresh facts, read at cutover. */
  nodes: PlacementNode[];
  storages: PlacementStorage[];
  maxMemoryCommit?: number;
  /**
   * The VM's shell is already on its node, so its memory is part of the node's committedBytes and is
   * not added a second time.
   */
  shellOnNode: boolean;
  /** Bytes other imports under way will still write, per storage (and node, for local storage). */
  reserved?: Array<{ storage: string; node?: string; bytes: number }>;
}

export type CutoverRecheck = { ok: true } | { ok: false; refusals: PlacementRefusal[] };

/**
 * Does the VM still fit where it was planned, against capacity read just before its cutover? Other
 * VMs may have landed on the node or its storages since planning. Disk sizes are the VM's current
 * ones (by label), falling back to the planned ones; the storages are the planned ones.
 */
export function recheckAtCutover(input: CutoverRecheckInput): CutoverRecheck {
  const { vm, placed } = input;
  const ratio = input.maxMemoryCommit ?? DEFAULT_MAX_MEMORY_COMMIT;
  const node = input.nodes.find((n) => n.name === placed.node);
  if (!node || !node.online) {
    return {
      ok: false,
      refusals: [
        {
          code: 'placement-node-unavailable',
          subject: vm.name,
          resource: placed.node,
          reason: `${vm.name} was planned on ${placed.node}, which is ${node ? 'offline' : 'no longer a node of the cluster'}; plan the wave again`,
        },
      ],
    };
  }
  const refusals: PlacementRefusal[] = [];
  const cpu = cpuRefusal(vm.name, node, vm.cpus);
  if (cpu) refusals.push(cpu);
  const others = node.committedBytes - (input.shellOnNode ? vm.memoryBytes : 0);
  const memory = memoryRefusal(vm.name, node, ratio, Math.max(0, others), vm.memoryBytes);
  if (memory) refusals.push(memory);

  const needs = new Map<string, { bytes: number; labels: string[]; by: string[] }>();
  for (const disk of placed.disks) {
    const bytes = vm.disks.find((d) => d.label === disk.label)?.capacityBytes ?? disk.capacityBytes;
    const need = needs.get(disk.storage) ?? { bytes: 0, labels: [], by: [] };
    need.bytes += bytes;
    need.labels.push(disk.label);
    if (!need.by.includes(disk.storageBy)) need.by.push(disk.storageBy);
    needs.set(disk.storage, need);
  }
  for (const [name, need] of [...needs].sort(([a], [b]) => compareCodeUnits(a, b))) {
    const storage = input.storages.find((s) => s.name === name);
    const kind = storageKindRefusal(vm.name, name, storage, need.labels, need.by);
    if (kind || !storage) {
      if (kind) refusals.push(kind);
      continue;
    }
    const key = roomKey(storage, node.name);
    const reserved = (input.reserved ?? [])
      .filter((r) => r.storage === name && roomKey(storage, r.node ?? node.name) === key)
      .reduce((sum, r) => sum + r.bytes, 0);
    const refusal = storageRefusal(vm.name, storage, node.name, need.bytes, reserved, need.labels, 0);
    if (refusal)
      refusals.push(
        reserved > 0
          ? {
              ...refusal,
              reason: `${refusal.reason}, with imports under way still to write ${formatBytes(reserved, 'up')}`,
            }
          : refusal,
      );
  }
  return refusals.length === 0 ? { ok: true } : { ok: false, refusals };
}
