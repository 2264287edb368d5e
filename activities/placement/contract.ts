/**
 * The reads placement makes before a wave moves anything (and again at cutover): the Proxmox cluster's
 * room, the migration datastore's room and the vSphere tags placement rules name. Workflows see only
 * these types.
 */
import type { MigrationDatastoreRoom } from '../../src/domain/placement';
import type { ClusterCapacity } from '../../src/proxmox';

export type { ClusterCapacity } from '../../src/proxmox';

export interface PlacementActivities {
  /** Nodes (memory, CPUs, committed memory) and storages (room per node); `exclude`: VMIDs not counted as committed (this wave's shells). */
  readClusterCapacity(input: { exclude: number[] }): Promise<ClusterCapacity>;
  /**
   * The datastore's capacity and free space as vCenter reports them (`summary.capacity`,
   * `summary.freeSpace`), looked up among the datastores the host of `nearVm` mounts (storage vMotion
   * can only move there); undefined when that host does not mount it.
   */
  readDatastoreRoom(input: { datastore: string; nearVm: string }): Promise<MigrationDatastoreRoom | undefined>;
  /** For each tag (`category/name` or `name`), the moids of the VMs carrying it. */
  readVmTags(input: { tags: string[] }): Promise<Record<string, string[]>>;
}

/** `ferry place`'s one write besides the shell create (createVmShell): the old shell goes. */
export interface ShellMoveActivities {
  /** Destroys the stopped, disk-less shell `name` (VMID `vmid`) on `node`; gone already: destroyed false (unless this run's earlier attempt deleted it). */
  destroyVmShell(input: { node: string; vmid: number; name: string }): Promise<{ destroyed: boolean }>;
}
