import { compareCodeUnits } from '../order';
import { cpuRefusal, memoryRefusal, storageKindRefusal, storageRefusal } from './capacity';
import { antiAffinityRefusal, vmDatastoreRefusal, waveDatastoreRefusal } from './explain';
import type { DatastoreBudget, PlacementLedger, SpreadGroup } from './ledger';
import type { PlacedDisk, PlacementNode, PlacementRefusal, PlacementStorage, PlacementVm } from './types';

/** What one VM's disks need on one storage. */
export interface StorageNeed {
  storage: string;
  bytes: number;
  /** The disks' labels. */
  labels: string[];
  /** How the disks were mapped there (PlacedDisk.storageBy), each once. */
  by: string[];
}

/** One VM as placement weighs it: its disks on the storages chosen for them, its anti-affinity groups. */
export interface PlacementRequest {
  vm: PlacementVm;
  disks: PlacedDisk[];
  /** Per storage, in storage-name order. */
  needs: StorageNeed[];
  groups: SpreadGroup[];
  /** Bytes storage vMotion moves onto the migration datastore for it (0 without one). */
  datastoreBytes: number;
}

/** Per storage, what a VM's disks need on it, in storage-name order. */
export function storageNeeds(disks: readonly PlacedDisk[]): StorageNeed[] {
  const byStorage = new Map<string, StorageNeed>();
  for (const disk of disks) {
    const need = byStorage.get(disk.storage) ?? { storage: disk.storage, bytes: 0, labels: [], by: [] };
    need.bytes += disk.capacityBytes;
    need.labels.push(disk.label);
    if (!need.by.includes(disk.storageBy)) need.by.push(disk.storageBy);
    byStorage.set(disk.storage, need);
  }
  return [...byStorage.values()].sort((a, b) => compareCodeUnits(a.storage, b.storage));
}

/** Problems no node choice changes: a storage the disks are mapped to does not exist or holds no disks. */
export function storageKindProblems(
  request: Pick<PlacementRequest, 'vm' | 'needs'>,
  storageByName: ReadonlyMap<string, PlacementStorage>,
): PlacementRefusal[] {
  return request.needs
    .map((need) =>
      storageKindRefusal(request.vm.name, need.storage, storageByName.get(need.storage), need.labels, need.by),
    )
    .filter((r): r is PlacementRefusal => r !== undefined);
}

/**
 * Why the VM cannot go on the node, with the numbers; empty when it fits there. In this order: its
 * vCPUs, memory under maxMemoryCommit, its anti-affinity groups, the room of each storage it needs.
 * Every storage it needs exists (storageKindProblems found none).
 */
export function fitOnNode(
  request: PlacementRequest,
  node: PlacementNode,
  ledger: PlacementLedger,
  maxMemoryCommit: number,
  storageByName: ReadonlyMap<string, PlacementStorage>,
): PlacementRefusal[] {
  const { vm } = request;
  const committed = ledger.committedOn(node.name);
  const found: Array<PlacementRefusal | undefined> = [
    cpuRefusal(vm.name, node, vm.cpus),
    memoryRefusal(vm.name, node, maxMemoryCommit, committed, vm.memoryBytes, ledger.addedByWaveOn(node.name)),
    ...request.groups.map((group) => fitGroup(vm.name, group, node.name, ledger)),
    ...request.needs.map((need) => {
      const storage = storageByName.get(need.storage)!;
      return storageRefusal(vm.name, storage, node.name, need.bytes, ledger.takenOn(storage, node.name), need.labels);
    }),
  ];
  return found.filter((r): r is PlacementRefusal => r !== undefined);
}

/** Anti-affinity is hard: a node holding as many of the group as it may takes no more. */
export function fitGroup(
  vmName: string,
  group: SpreadGroup,
  node: string,
  ledger: Pick<PlacementLedger, 'membersOn'>,
): PlacementRefusal | undefined {
  const there = ledger.membersOn(group, node);
  return there + 1 > group.cap ? antiAffinityRefusal(vmName, group, node, there) : undefined;
}

/**
 * Not partial: the wave's disks must all fit on the migration datastore, or the wave is refused whole.
 * (A partial wave checks each VM in turn: fitOnDatastore.)
 */
export function fitWaveOnDatastore(budget: DatastoreBudget | undefined, partial: boolean): PlacementRefusal[] {
  if (!budget || partial) return [];
  const { needBytes, roomBytes } = budget;
  return needBytes > 0 && needBytes > roomBytes ? [waveDatastoreRefusal(budget)] : [];
}

/** Partial: the VM's disks must fit in what the VMs placed before it left of the migration datastore. */
export function fitOnDatastore(
  request: Pick<PlacementRequest, 'vm' | 'datastoreBytes'>,
  ledger: Pick<PlacementLedger, 'datastore' | 'datastorePlaced'>,
  partial: boolean,
): PlacementRefusal | undefined {
  const budget = ledger.datastore;
  const need = request.datastoreBytes;
  if (!budget || !partial || need <= 0) return undefined;
  const placed = ledger.datastorePlaced;
  return placed + need > budget.roomBytes ? vmDatastoreRefusal(request.vm.name, budget, placed, need) : undefined;
}
