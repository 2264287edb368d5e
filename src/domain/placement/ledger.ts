import { roomKey } from './capacity';
import type { MigrationDatastoreRoom, PlacementNode, PlacementStorage, PlacementVm } from './types';

/** An anti-affinity group of the wave: the VMs it selects (by moid) and how many of them may share a node. */
export interface SpreadGroup {
  index: number;
  /** `anti-affinity group 2 (tag app/web)`. */
  label: string;
  members: ReadonlySet<string>;
  cap: number;
}

/** The room storage vMotion has on the migration datastore for the whole wave. */
export interface DatastoreBudget {
  datastore: MigrationDatastoreRoom;
  /** migrationHeadroom: the share of the capacity kept free. */
  headroom: number;
  /** capacity × headroom, rounded up. */
  headroomBytes: number;
  /** What may move there: free − headroomBytes (negative when already past the headroom). */
  roomBytes: number;
  /** Bytes of every disk of the wave not on it yet. */
  needBytes: number;
}

/** What storage vMotion copies onto the migration datastore for this VM: every disk not there yet. */
export function migrationDatastoreNeed(vm: Pick<PlacementVm, 'disks'>, datastore: string): number {
  return vm.disks
    .filter((d) => d.datastore !== datastore)
    .reduce((sum, d) => sum + (d.usedBytes ?? d.capacityBytes), 0);
}

export function datastoreBudget(
  datastore: MigrationDatastoreRoom | undefined,
  vms: readonly PlacementVm[],
  headroom: number,
): DatastoreBudget | undefined {
  if (!datastore) return undefined;
  const headroomBytes = Math.ceil(datastore.capacityBytes * headroom);
  return {
    datastore,
    headroom,
    headroomBytes,
    roomBytes: datastore.freeBytes - headroomBytes,
    needBytes: vms.reduce((sum, vm) => sum + migrationDatastoreNeed(vm, datastore.name), 0),
  };
}

/** What a placed VM takes: its memory on a node, its disks' bytes per storage, its anti-affinity groups. */
export interface LedgerEntry {
  memoryBytes: number;
  needs: ReadonlyArray<{ storage: string; bytes: number }>;
  groups: readonly SpreadGroup[];
  /** Bytes storage vMotion moves onto the migration datastore for it. */
  datastoreBytes: number;
}

/**
 * The cluster's capacity as a wave fills it, VM after VM: memory committed per node (what was there and
 * what this wave added), bytes taken per storage room (once for shared storage, per node for local),
 * members of each anti-affinity group per node, and bytes placed on the migration datastore.
 */
export class PlacementLedger {
  private readonly committed: Map<string, number>;
  private readonly addedMemory = new Map<string, number>();
  private readonly taken = new Map<string, number>();
  private readonly grouped = new Map<string, number>();
  private placedOnDatastore = 0;

  constructor(
    nodes: readonly PlacementNode[],
    private readonly storageByName: ReadonlyMap<string, PlacementStorage>,
    readonly datastore?: DatastoreBudget,
  ) {
    this.committed = new Map(nodes.map((n) => [n.name, n.committedBytes]));
  }

  /** Memory promised on the node: its own VMs' and this wave's so far. */
  committedOn(node: string): number {
    return this.committed.get(node) ?? 0;
  }

  /** The part of `committedOn` this wave's VMs added. */
  addedByWaveOn(node: string): number {
    return this.addedMemory.get(node) ?? 0;
  }

  /** Bytes this wave's disks took on the storage's room as seen from the node. */
  takenOn(storage: Pick<PlacementStorage, 'name' | 'shared'>, node: string): number {
    return this.taken.get(roomKey(storage, node)) ?? 0;
  }

  /** Members of the group this wave placed on the node. */
  membersOn(group: Pick<SpreadGroup, 'index'>, node: string): number {
    return this.grouped.get(groupKey(group, node)) ?? 0;
  }

  /** Bytes the VMs placed so far move onto the migration datastore. */
  get datastorePlaced(): number {
    return this.placedOnDatastore;
  }

  /** Books a VM on the node. Every storage it needs is one of the cluster's. */
  commit(node: string, entry: LedgerEntry): void {
    this.committed.set(node, this.committedOn(node) + entry.memoryBytes);
    this.addedMemory.set(node, this.addedByWaveOn(node) + entry.memoryBytes);
    for (const group of entry.groups) this.grouped.set(groupKey(group, node), this.membersOn(group, node) + 1);
    for (const need of entry.needs) {
      const key = roomKey(this.storageByName.get(need.storage)!, node);
      this.taken.set(key, (this.taken.get(key) ?? 0) + need.bytes);
    }
    this.placedOnDatastore += entry.datastoreBytes;
  }
}

function groupKey(group: Pick<SpreadGroup, 'index'>, node: string): string {
  return `${group.index} ${node}`;
}
