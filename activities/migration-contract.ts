/**
 * The activities the migration workflows call, by name and shape. activities/migration.ts implements
 * them on the vSphere and Proxmox clients; workflows see only this type.
 */
import type { PortgroupRecord, VmRecord } from '../src/domain/inventory';
import type { MigrationSettings, PlannedVnet, SdnState } from '../src/domain/migration';

export interface WaveSelection {
  /** VM names (exact). */
  names?: string[];
  /** Inventory folder path, e.g. `/DC0/vm/apps` (VMs below it). */
  folder?: string;
  /** Cluster name. */
  cluster?: string;
  /** vSphere tag (`name` or `category/name`). */
  tag?: string;
}

export interface VmSnapshot {
  vcenter: string;
  vm: VmRecord;
  /** The portgroups the VM's NICs use. */
  portgroups: PortgroupRecord[];
  /** Datastores holding the VM's files (config and disks). */
  datastores: string[];
}

export interface PveVmRef {
  vmid: number;
  name?: string;
  node: string;
  status: string;
}

export interface ImportedDisk {
  slot: string;
  volume: string;
  bytes: number;
  seconds: number;
  /** The slot already held an imported volume (a retry or rerun): nothing was copied. */
  alreadyPresent: boolean;
}

export interface LiveImported {
  /** The VM was created (now or by an earlier attempt of this call); false: found complete, nothing copied. */
  created: boolean;
  /** How long the live import's create task ran (0 when found complete). */
  seconds: number;
  disks: Array<{ slot: string; volume: string; bytes: number }>;
}

export interface MigrationActivities {
  loadMigrationSettings(): Promise<MigrationSettings>;
  /** Proxmox VMs and configs for the given VMIDs and names, and the SDN state: one read for `plan`. */
  readPlanState(input: { vms: Array<{ vmid: number; name: string }> }): Promise<PlanState>;
  /** One discovery for a whole wave: selected VMs with all portgroups. */
  discoverWave(selection: WaveSelection): Promise<{ vcenter: string; vms: VmRecord[]; portgroups: PortgroupRecord[]; datastoresByVm: Record<string, string[]> }>;
  /** One VM with the portgroups its NICs use (a standalone migration; a wave passes this in). */
  readVmForMigration(input: { moid: string }): Promise<VmSnapshot>;
  /** One VM's hardware read fresh (cutover needs the disk paths after the storage vMotion). */
  rereadVm(input: { moid: string }): Promise<VmRecord>;
  findPveVms(input: { vmid: number; name: string }): Promise<PveVmRef[]>;
  readPveConfig(input: { node: string; vmid: number }): Promise<Record<string, string | number>>;
  readSdnState(): Promise<SdnState>;
  /** Creates the zone and VNets that are missing and applies once. */
  ensureSdn(input: { zone: string; bridge: string; vnets: PlannedVnet[] }): Promise<{ created: string[]; applied: boolean }>;
  createVmShell(input: { node: string; params: Record<string, string | number> }): Promise<{ created: boolean }>;
  waitVmVisible(input: { vmid: number }): Promise<{ visible: boolean }>;
  setNic(input: { node: string; vmid: number; slot: string; value: string }): Promise<void>;
  relocateVm(input: { moid: string; datastore: string }): Promise<{ moved: boolean }>;
  shutdownGuest(input: { moid: string; timeoutMs: number; force: boolean }): Promise<{ result: 'shut-down' | 'powered-off' | 'already-off' }>;
  powerOnVm(input: { moid: string }): Promise<{ result: 'powered-on' | 'already-on' }>;
  importDisk(input: { node: string; vmid: number; slot: string; source: string; storage: string }): Promise<ImportedDisk>;
  /**
   * live-import: replaces the disk-less, stopped shell by the VM created with all its disks `import-from`
   * and live-restore; returns when PVE has streamed every disk in (the VM runs from the start).
   */
  liveImportVm(input: { node: string; vmid: number; name: string; params: Record<string, string | number>; slots: string[]; storage: string }): Promise<LiveImported>;
  diskSizes(input: { node: string; vmid: number }): Promise<Record<string, number>>;
  setBootOrder(input: { node: string; vmid: number; order: string }): Promise<void>;
  startVm(input: { node: string; vmid: number }): Promise<void>;
  /** Detaches and deletes the given disk slots (rollback of what this workflow imported). */
  removeDisks(input: { node: string; vmid: number; slots: string[] }): Promise<void>;
  /** Stops and destroys the VM with its disks, even if a failed live import left it locked (rollback of live-import). */
  discardVm(input: { node: string; vmid: number; name: string }): Promise<{ destroyed: boolean }>;
  /** Hard-stops the Proxmox VM if it runs. */
  stopVm(input: { node: string; vmid: number }): Promise<void>;
}

/** Everything `plan` reads from Proxmox in one call. */
export interface PlanState {
  existing: PveVmRef[];
  /** Configs of the existing VMs, by VMID. */
  configs: Record<number, Record<string, string | number>>;
  sdn: SdnState;
}
