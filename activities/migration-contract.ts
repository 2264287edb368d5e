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
  attachDisk(input: { node: string; vmid: number; slot: string; path: string }): Promise<void>;
  moveDisk(input: { node: string; vmid: number; slot: string; storage: string }): Promise<{ moved: boolean }>;
  diskSizes(input: { node: string; vmid: number }): Promise<Record<string, number>>;
  setBootOrder(input: { node: string; vmid: number; order: string }): Promise<void>;
  startVm(input: { node: string; vmid: number }): Promise<void>;
  /** Detaches and deletes the given disk slots (rollback of what this workflow imported). */
  removeDisks(input: { node: string; vmid: number; slots: string[] }): Promise<void>;
  /** Detaches the given slots without deleting anything (VMware files attached in place). */
  detachDisks(input: { node: string; vmid: number; slots: string[] }): Promise<void>;
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
