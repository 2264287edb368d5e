/**
 * The activities the migration workflows call, by name and shape, grouped by the system they talk to.
 * activities/migration/ implements them on the vSphere and Proxmox clients; workflows see only these types.
 */
import type { PortgroupRecord, VmRecord } from '../src/domain/inventory';
import type { MigratedVmSpec, MigrationSettings, PlannedVnet, SdnState, WaveSelection } from '../src/domain/migration';
import type { ConversionActivities } from './conversion-contract';
import type { HaActivities } from './ha-contract';
import type { PveVmRef } from './pve-vm-contract';

export type { WaveSelection } from '../src/domain/migration';

export interface VmSnapshot {
  vcenter: string;
  vm: VmRecord;
  /** The portgroups the VM's NICs use. */
  portgroups: PortgroupRecord[];
  /** Datastores holding the VM's files (config and disks). */
  datastores: string[];
}

export interface ImportedDisk {
  slot: string;
  volume: string;
  bytes: number;
  seconds: number;
  /** The slot already held an imported volume (a retry or rerun): nothing was copied. */
  alreadyPresent: boolean;
}

export interface MovedDisk {
  slot: string;
  /** The volume on the target storage. */
  volume: string;
  bytes: number;
  seconds: number;
  /** Found on the target storage already: nothing was moved now. */
  alreadyMoved: boolean;
  /** The activity's attempt that finished it (a retry after a failed move or a lost worker counts). */
  attempt: number;
}

export interface LiveImported {
  /** The VM was created (now or by an earlier attempt of this call); false: found complete, nothing copied. */
  created: boolean;
  /** How long the live import's create task ran (0 when found complete). */
  seconds: number;
  disks: Array<{ slot: string; volume: string; bytes: number }>;
}

/** A cancelled VM as vCenter shows it. */
export interface VmAfterCancel {
  powerState: VmRecord['powerState'];
  disks: Array<{ label: string; datastore?: string }>;
  /** Its latest storage vMotion task among the VM's recent tasks, if any. */
  relocation?: { task: string; state: string };
}

/** The run's settings, from the worker's configuration. */
export interface MigrationSettingsActivities {
  loadMigrationSettings(): Promise<MigrationSettings>;
}

/** What the migration asks of vCenter: discovery, storage vMotion, guest power. */
export interface VsphereMigrationActivities {
  /** One discovery for a whole wave: selected VMs with all portgroups. */
  discoverWave(selection: WaveSelection): Promise<{
    vcenter: string;
    vms: VmRecord[];
    portgroups: PortgroupRecord[];
    datastoresByVm: Record<string, string[]>;
  }>;
  /** One VM with the portgroups its NICs use (a standalone migration; a wave passes this in). */
  readVmForMigration(input: { moid: string }): Promise<VmSnapshot>;
  /** One VM's hardware read fresh (cutover needs the disk paths after the storage vMotion). */
  rereadVm(input: { moid: string }): Promise<VmRecord>;
  relocateVm(input: { moid: string; datastore: string }): Promise<{ moved: boolean }>;
  /** After `ferry cancel`: the VM's power state, where its disks are, and how its last storage vMotion task ended. */
  readVmAfterCancel(input: { moid: string }): Promise<VmAfterCancel>;
  shutdownGuest(input: {
    moid: string;
    timeoutMs: number;
    force: boolean;
  }): Promise<{ result: 'shut-down' | 'powered-off' | 'already-off' }>;
  /** Powers the VMware VM on (a rollback, to the power state it had). */
  powerOnVm(input: { moid: string }): Promise<{ result: 'powered-on' | 'already-on' }>;
}

/** What the migration asks of Proxmox beyond the generic VM operations: the plan's read, SDN, the shell, disks coming in. */
export interface ProxmoxMigrationActivities {
  /** Proxmox VMs and configs for the given VMIDs and names, and the SDN state: one read for `plan`. */
  readPlanState(input: { vms: Array<{ vmid: number; name: string }> }): Promise<PlanState>;
  readSdnState(): Promise<SdnState>;
  /** Creates the zone and VNets that are missing and applies once. */
  ensureSdn(input: {
    zone: string;
    bridge: string;
    vnets: PlannedVnet[];
  }): Promise<{ created: string[]; applied: boolean }>;
  createVmShell(input: { spec: MigratedVmSpec }): Promise<{ created: boolean }>;
  importDisk(input: {
    node: string;
    vmid: number;
    slot: string;
    source: string;
    storage: string;
  }): Promise<ImportedDisk>;
  /**
   * live-import: replaces the disk-less, stopped shell by the VM created from `spec` (every disk
   * `import-from`, live-restore); returns when PVE has streamed every disk in (the VM runs from the start).
   */
  liveImportVm(input: { spec: MigratedVmSpec }): Promise<LiveImported>;
  /** overlay: attaches an existing volume (the disk's overlay) to an empty slot; the same volume there already is nothing to do. */
  attachDisk(input: { node: string; vmid: number; slot: string; volume: string }): Promise<{ attached: boolean }>;
  /**
   * overlay: moves the disk live to `storage` (move_disk, drive-mirror while the VM runs; its source, the
   * overlay, deleted once moved). A retry rejoins the move an earlier attempt started; a disk found on
   * `storage` already is moved.
   */
  moveDisk(input: {
    node: string;
    vmid: number;
    slot: string;
    storage: string;
    bandwidthMiBps?: number;
  }): Promise<MovedDisk>;
}

export type MigrationActivities = MigrationSettingsActivities &
  VsphereMigrationActivities &
  ProxmoxMigrationActivities &
  HaActivities &
  ConversionActivities;

/** Everything `plan` reads from Proxmox in one call. */
export interface PlanState {
  existing: PveVmRef[];
  /** Configs of the existing VMs, by VMID. */
  configs: Record<number, Record<string, string | number>>;
  sdn: SdnState;
}
