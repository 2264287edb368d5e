import type { Refusal } from '../migration/refusal';
import type { VmMatch } from './match';

/** A Proxmox node as read just before planning (or at cutover, for the re-check). */
export interface PlacementNode {
  name: string;
  online: boolean;
  /** Physical memory. */
  memoryBytes: number;
  /**
   * Memory already promised on the node: the sum of `maxmem` of the VMs there, running or not. The
   * caller leaves out the shells of this wave's own VMs (a rerun must not count them twice).
   */
  committedBytes: number;
  cpus: number;
}

/** A Proxmox storage, with its room on each node where it is enabled and active. */
export interface PlacementStorage {
  name: string;
  /** Shared storage (NFS, Ceph, …) has one pool of room for every node; local storage one per node. */
  shared: boolean;
  /** PVE content types; a disk import needs `images`. */
  content: string[];
  /** The nodes that reach it. For shared storage the smallest `availBytes` reported counts. */
  nodes: Array<{ node: string; totalBytes: number; availBytes: number }>;
}

export interface PlacementDisk {
  /** VMware label, e.g. `Hard disk 1`. */
  label: string;
  /** The vSphere datastore the disk is on now. */
  datastore: string;
  /** Provisioned size: what an import may take on the target storage. */
  capacityBytes: number;
  /** Bytes the disk takes on its datastore now (thin disks), i.e. what storage vMotion copies. Default: capacity. */
  usedBytes?: number;
}

export interface PlacementVm {
  moid: string;
  name: string;
  /** Inventory folder path, e.g. `/DC0/vm/apps`. */
  folder?: string;
  /** vSphere tags as `category/name`. */
  tags: string[];
  memoryBytes: number;
  cpus: number;
  disks: PlacementDisk[];
}

/** Pin the VMs a match selects to one node, or to any node of a group (a list). First match wins. */
export interface PlacementRule {
  match: VmMatch;
  nodes: string[];
}

/** The wave's VMs a tag or name pattern selects go to different nodes. */
export type AntiAffinityGroup = Pick<VmMatch, 'tag' | 'name'>;

/** A disk on this datastore (glob) and/or with this label (glob) is imported onto `storage`. First match wins. */
export interface StorageMapEntry {
  datastore?: string;
  label?: string;
  storage: string;
}

/** `migration.*` settings that decide placement. */
export interface PlacementSettings {
  /** The nodes the migration may use; undefined: every online node. */
  nodes?: string[];
  rules?: PlacementRule[];
  /** Memory committed on a node may reach this multiple of its physical memory (default 1.0). */
  maxMemoryCommit?: number;
  antiAffinity?: AntiAffinityGroup[];
  storageMap?: StorageMapEntry[];
  /** Where a disk no storageMap entry matches is imported. */
  targetStorage: string;
  /**
   * The share of the migration datastore's capacity that must stay free after every disk has moved
   * there, a fraction from 0 to 1 (default 0.1: keep 10 % free).
   */
  migrationHeadroom?: number;
  /** false (default): a wave that does not fit is refused whole. true: only the VMs that do not fit are refused. */
  partial?: boolean;
}

/** The vSphere datastore storage vMotion moves the disks to, as vCenter reports it now. */
export interface MigrationDatastoreRoom {
  name: string;
  capacityBytes: number;
  freeBytes: number;
}

export interface PlacementInput {
  nodes: PlacementNode[];
  storages: PlacementStorage[];
  vms: PlacementVm[];
  settings: PlacementSettings;
  /** Omit to skip the migration datastore check (e.g. every disk is already there). */
  migrationDatastore?: MigrationDatastoreRoom;
}

export type PlacementRefusalCode =
  /** Every node a rule pins the VM to is unknown, offline or outside `migration.nodes`. */
  | 'placement-pin-unusable'
  /** No node is usable at all (none online, or `migration.nodes` names none that is). */
  | 'placement-no-node'
  /** At cutover: the planned node is gone or offline. */
  | 'placement-node-unavailable'
  | 'placement-cpu'
  | 'placement-memory'
  | 'placement-anti-affinity'
  | 'placement-storage-unknown'
  | 'placement-storage-content'
  | 'placement-storage-unreachable'
  | 'placement-storage-room'
  | 'placement-migration-datastore'
  /** The VM fits, but the wave is refused whole because others do not. */
  | 'placement-wave-refused';

/**
 * The project's refusal shape (subject, a reason a person can act on) with placement's own codes and,
 * for capacity refusals, the numbers: which resource, how much is needed, how much room there is.
 */
export type PlacementRefusal = Omit<Refusal, 'code'> & {
  code: PlacementRefusalCode;
  /** `local-lvm on pve2`, `memory on pve1`, `migration datastore nfs-migration`. */
  resource?: string;
  need?: number;
  room?: number;
};

export interface PlacedDisk {
  label: string;
  datastore: string;
  storage: string;
  capacityBytes: number;
  /** `storageMap 2 (datastore ssd-*)` or `targetStorage`. */
  storageBy: string;
}

export interface PlacedVm {
  moid: string;
  name: string;
  node: string;
  memoryBytes: number;
  disks: PlacedDisk[];
  /** Why this node: the pin, the anti-affinity spread, the load, and why other nodes were passed over. */
  reasons: string[];
}

export interface RefusedVm {
  moid: string;
  name: string;
  refusals: PlacementRefusal[];
}

export interface NodeTotals {
  node: string;
  online: boolean;
  /** Usable by this wave (online and in `migration.nodes`). */
  usable: boolean;
  memoryBytes: number;
  /** memoryBytes × maxMemoryCommit, rounded down. */
  limitBytes: number;
  committedBeforeBytes: number;
  committedAfterBytes: number;
  /** Names of the wave's VMs placed here. */
  vms: string[];
}

export interface StorageTotals {
  storage: string;
  /** Undefined for shared storage (one pool). */
  node?: string;
  shared: boolean;
  availBeforeBytes: number;
  placedBytes: number;
  availAfterBytes: number;
}

export interface MigrationDatastoreTotals {
  name: string;
  capacityBytes: number;
  freeBytes: number;
  /** capacity × migrationHeadroom, rounded up: kept free. */
  headroomBytes: number;
  /** What may move there: free − headroom. */
  roomBytes: number;
  /** Bytes of every disk of the wave not on it yet. */
  needBytes: number;
  /** Bytes of the placed VMs' disks that move there. */
  placedBytes: number;
}

export interface Placement {
  /** Every VM of the wave is placed. */
  ok: boolean;
  /** In name order. Empty when the wave is refused whole. */
  placed: PlacedVm[];
  /** In name order. */
  refused: RefusedVm[];
  /** Refusals of the wave as a whole (the migration datastore when not partial). */
  waveRefusals: PlacementRefusal[];
  nodes: NodeTotals[];
  storages: StorageTotals[];
  migrationDatastore?: MigrationDatastoreTotals;
  /** Things a person should know that refuse nothing (an anti-affinity group larger than the nodes, …). */
  notes: string[];
}
