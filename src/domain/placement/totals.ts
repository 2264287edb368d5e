import { compareCodeUnits } from '../order';
import { memoryLimit, storageAvail } from './capacity';
import { migrationDatastoreNeed, type DatastoreBudget } from './ledger';
import type {
  MigrationDatastoreTotals,
  NodeTotals,
  PlacedVm,
  PlacementNode,
  PlacementStorage,
  PlacementVm,
  StorageTotals,
} from './types';

/** Each node's memory before and after the placed VMs, in node-name order. */
export function nodeTotals(
  nodes: readonly PlacementNode[],
  placed: readonly PlacedVm[],
  ratio: number,
  usable: readonly string[],
): NodeTotals[] {
  return nodes.map((node) => {
    const here = placed.filter((p) => p.node === node.name);
    return {
      node: node.name,
      online: node.online,
      usable: usable.includes(node.name),
      memoryBytes: node.memoryBytes,
      limitBytes: memoryLimit(node, ratio),
      committedBeforeBytes: node.committedBytes,
      committedAfterBytes: node.committedBytes + here.reduce((sum, p) => sum + p.memoryBytes, 0),
      vms: here.map((p) => p.name).sort(compareCodeUnits),
    };
  });
}

/** Each storage room (shared: one; local: one per node) before and after the placed VMs' disks. */
export function storageTotals(storages: readonly PlacementStorage[], placed: readonly PlacedVm[]): StorageTotals[] {
  const rows: StorageTotals[] = [];
  for (const storage of storages) {
    const entries = storage.shared
      ? storage.nodes.slice(0, 1)
      : [...storage.nodes].sort((a, b) => compareCodeUnits(a.node, b.node));
    for (const entry of entries) {
      const availBeforeBytes = storageAvail(storage, entry.node)!;
      const placedBytes = placed
        .filter((p) => storage.shared || p.node === entry.node)
        .flatMap((p) => p.disks)
        .filter((d) => d.storage === storage.name)
        .reduce((sum, d) => sum + d.capacityBytes, 0);
      rows.push({
        storage: storage.name,
        node: storage.shared ? undefined : entry.node,
        shared: storage.shared,
        availBeforeBytes,
        placedBytes,
        availAfterBytes: availBeforeBytes - placedBytes,
      });
    }
  }
  return rows;
}

/** The migration datastore's room, the wave's need and what the placed VMs move there. */
export function datastoreTotals(
  budget: DatastoreBudget,
  placed: readonly PlacedVm[],
  vms: readonly PlacementVm[],
): MigrationDatastoreTotals {
  const { datastore } = budget;
  return {
    name: datastore.name,
    capacityBytes: datastore.capacityBytes,
    freeBytes: datastore.freeBytes,
    headroomBytes: budget.headroomBytes,
    roomBytes: budget.roomBytes,
    needBytes: budget.needBytes,
    placedBytes: placed.reduce(
      (sum, p) =>
        sum +
        migrationDatastoreNeed(
          vms.find((vm) => vm.moid === p.moid)!,
          datastore.name,
        ),
      0,
    ),
  };
}
