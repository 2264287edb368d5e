/**
 * Generic Proxmox VM operations every VM workflow uses (migrate, provision, teardown, change), by name and
 * shape: find and read a VM, its power, its slots, and what its guest shows. activities/pve-vm/ implements
 * them on the Proxmox client; workflows see only these types. A new generic Proxmox operation goes here.
 */
import type { ConfigWrite, GuestView, VmReality } from '../src/domain/change';
import type { GuestInterface } from '../src/domain/migration';
import type { NicSpec } from '../src/domain/pve-vm-spec';

export interface PveVmRef {
  vmid: number;
  name?: string;
  node: string;
  status: string;
}

/** QEMU's view of a VM and how long it has been up. */
export interface GuestRunState {
  status: 'running' | 'stopped';
  qmpstatus?: string;
  uptimeSeconds: number;
}

/** Finding and reading a VM. */
export interface PveVmReads {
  /** VMs with this VMID or this name, on every node (each node's own list too: the cluster's lags a create). */
  findPveVms(input: { vmid: number; name: string }): Promise<PveVmRef[]>;
  readPveConfig(input: { node: string; vmid: number }): Promise<Record<string, string | number>>;
  /** Whether /cluster/resources lists the VM (other nodes answer for it only then). */
  waitVmVisible(input: { vmid: number }): Promise<{ visible: boolean }>;
  vmPowerState(input: { node: string; vmid: number }): Promise<{ status: 'running' | 'stopped' | 'absent' }>;
  /** Each attached disk's size in bytes (-1 when PVE does not say), by slot. */
  diskSizes(input: { node: string; vmid: number }): Promise<Record<string, number>>;
}

/** Power: each waits on its Proxmox task. */
export interface PveVmPower {
  startVm(input: { node: string; vmid: number }): Promise<void>;
  /** Hard-stops the VM if it runs. */
  stopVm(input: { node: string; vmid: number }): Promise<void>;
  /** ACPI shutdown, waiting up to the timeout; a guest that does not react is reported, not killed. */
  shutdownVm(input: {
    node: string;
    vmid: number;
    timeoutMs: number;
  }): Promise<{ result: 'shut-down' | 'already-stopped' | 'timed-out' }>;
}

/** Writes to a VM's slots and options, and removing it. */
export interface PveVmWrites {
  setNic(input: { node: string; vmid: number; slot: string; nic: NicSpec }): Promise<void>;
  setBootOrder(input: { node: string; vmid: number; order: string }): Promise<void>;
  /** Detaches and deletes the given disk slots (a rollback of what a workflow imported). */
  removeDisks(input: { node: string; vmid: number; slots: string[] }): Promise<void>;
  /** Deletes the VM with purge (and its unreferenced disks); already gone: nothing to do. */
  deleteVm(input: { node: string; vmid: number }): Promise<{ deleted: boolean }>;
  /**
   * Stops and destroys the VM with its disks, even when a live import left it locked or a config value
   * names a file path (both need the privileged client); only a VM of this name.
   */
  discardVm(input: { node: string; vmid: number; name: string }): Promise<{ destroyed: boolean }>;
}

/** What a started guest shows, through Proxmox's agent endpoints, and its services by TCP. */
export interface GuestChecks {
  guestRunState(input: { node: string; vmid: number }): Promise<GuestRunState>;
  /**
   * guest-ping once: `answered` false (with PVE's reason) while the agent is not running yet, so the
   * workflow asks again on a durable timer; an agent that is not configured fails non-retryable.
   * `uptimeSeconds`: QEMU's uptime read right after the agent answered (boot-to-agent).
   */
  pingGuestAgent(input: {
    node: string;
    vmid: number;
  }): Promise<{ answered: boolean; reason?: string; uptimeSeconds?: number }>;
  guestInterfaces(input: { node: string; vmid: number }): Promise<GuestInterface[]>;
  /** One TCP connect to the guest's address:port (through the worker's endpoint resolver); never throws for a refused or silent port. */
  probeGuestPort(input: {
    vmid: number;
    address: string;
    port: number;
    timeoutMs: number;
  }): Promise<{ ok: boolean; endpoint: string; ms: number; error?: string }>;
}

/** Day 2: a VM read as the change plan takes it, the plan's writes, and what the guest sees after them. */
export interface PveVmChanges {
  /** The VM on its node (found cluster-wide): config with pending and digest, power, and the node's storages. */
  readVmState(input: { vmid: number }): Promise<VmReality & { name?: string }>;
  /** A VM read back after the plan's writes, on the node the plan found it: config with pending, and power (no search, no storages). */
  readVmBack(input: { node: string; vmid: number }): Promise<Pick<VmReality, 'config' | 'pending' | 'power'>>;
  /**
   * One config write of a change plan (src/domain/change/steps.ts). What Proxmox has already (an earlier
   * attempt's write) is not sent again; `sent` lists the parameters written. The first attempt carries
   * the plan's digest, so a VM changed since the plan fails it (conflict) instead of being overwritten.
   */
  writeVmConfig(input: {
    node: string;
    vmid: number;
    write: ConfigWrite;
    digest?: string;
  }): Promise<{ sent: string[] }>;
  /** Grows a disk to an absolute size (`32G`); the same size: nothing to do. */
  resizeVmDisk(input: { node: string; vmid: number; slot: string; size: string }): Promise<{ changed: boolean }>;
  /** Moves a disk to another storage, live on a running VM; the source kept as unusedN unless `deleteSource`. */
  moveVmDisk(input: {
    node: string;
    vmid: number;
    slot: string;
    storage: string;
    deleteSource: boolean;
  }): Promise<{ changed: boolean }>;
  /** What the guest itself sees, through its agent: memory online, each SCSI disk's size by slot, its interfaces. */
  readGuestView(input: { node: string; vmid: number }): Promise<GuestView | undefined>;
}

export type PveVmActivities = PveVmReads & PveVmPower & PveVmWrites & GuestChecks & PveVmChanges;
