/**
 * The activities the provisioning and teardown workflows call, by name and shape.
 * activities/provisioning.ts and activities/teardown.ts implement them on the Proxmox, NetBox, DNS
 * and known_hosts clients; workflows see only these types. Generic Proxmox VM operations (find, power,
 * delete, guest checks) are in pve-vm-contract.ts.
 */
import type {
  BareVm,
  CleanupOutcome,
  DiskSpec,
  NetboxAfterTeardown,
  NetboxVmRecord,
  PlannedRecord,
  NicSpec,
  ProvisioningSettings,
  SeenVersion,
  TeardownTarget,
  VmidRange,
  VmidRequest,
} from '../src/domain/provisioning';

/** What an idempotent NetBox or DNS write did. */
export type WriteOutcome = 'created' | 'updated' | 'unchanged';

export interface ProvisioningActivities {
  loadProvisioningSettings(): Promise<ProvisioningSettings>;
  readNetboxVm(input: { netboxId: number }): Promise<NetboxVmRecord>;
  /** NetBox VMs in status `planned`, optionally of one cluster (name) and with a tag (slug). */
  listPlannedVms(input: { cluster?: string; tag?: string }): Promise<Array<{ netboxId: number; name: string }>>;
  /**
   * The same VMs, each read whole in the one list request (a record whose ferry fields are invalid
   * comes with the problem instead): what provisionPlanned places its batch with, without a read per VM.
   */
  readPlannedVms(input: { cluster?: string; tag?: string }): Promise<PlannedRecord[]>;
  /** Asks the VMID allocator workflow (update-with-start on `taskQueue`) for a VMID. */
  requestVmid(input: { request: VmidRequest; taskQueue: string }): Promise<{ vmid: number }>;
  /** VMIDs Proxmox uses (VMs and containers) and NetBox VMs hold in `ferry_vmid` within the range. */
  usedVmids(input: { range: VmidRange }): Promise<number[]>;
  /**
   * Writes the VMID into the record's `ferry_vmid` (guarded by its ETag). A record that meanwhile got
   * a VMID keeps it: the answer is the VMID the record holds.
   */
  recordVmid(input: {
    netboxId: number;
    vmid: number;
    /** The record as this run read it (without a VMID): written guarded by that ETag, without reading again. */
    seen?: SeenVersion;
  }): Promise<{ vmid: number; outcome: WriteOutcome; seen?: SeenVersion }>;
  /** Checks through the API that the node is online and has the storages, networks and ISO; lists every problem. */
  preflightVm(input: {
    node: string;
    storages: string[];
    networks: string[];
    iso?: string;
  }): Promise<{ problems: string[] }>;
  /** Creates the bare VM, or finds the one created before under this VMID (same name). */
  createBareVm(input: BareVm): Promise<{ created: boolean }>;
  ensureVmAcl(input: {
    vmid: number;
    roles: string[];
    users: string[];
    groups: string[];
  }): Promise<{ changed: boolean }>;
  /** The disk in its slot with its size (grown, never shrunk) and options. */
  ensureVmDisk(input: { node: string; vmid: number; disk: DiskSpec }): Promise<{ outcome: WriteOutcome }>;
  /** The NIC in its slot; its MAC is kept unless the spec names one. */
  ensureVmNic(input: { node: string; vmid: number; nic: NicSpec }): Promise<{ outcome: WriteOutcome }>;
  /** Options set through the config API, only those that differ. */
  ensureVmOptions(input: {
    node: string;
    vmid: number;
    options: Record<string, string>;
  }): Promise<{ changed: string[] }>;
  /**
   * A cloud-init drive (`<slot>: <storage>:cloudinit`, added when the VM has none) and its settings
   * (`ipconfig0`, `nameserver`, …): what changed, by key.
   */
  ensureCloudInit(input: {
    node: string;
    vmid: number;
    slot: string;
    storage: string;
    settings: Record<string, string>;
  }): Promise<{ changed: string[] }>;
  /** The MAC of every NIC, from the VM config: the one place ferry reads MACs from (upper case, colon-separated). */
  readVmMacs(input: { node: string; vmid: number }): Promise<Record<string, string>>;
  /** The NetBox interface `name` of the VM with `mac` as its primary MAC object. */
  ensureNetboxInterface(input: {
    netboxId: number;
    name: string;
    mac: string;
    /** This run read the VM with no interfaces: it creates without looking first. */
    vmHadNone?: boolean;
  }): Promise<{ interfaceId: number; interface: WriteOutcome; mac: WriteOutcome }>;
  /**
   * An address from the prefix for the interface: the one it has there already, else a new one from
   * NetBox's available-ips (which is not idempotent: hence the look first); made the VM's primary IPv4.
   */
  assignNetboxIp(input: {
    netboxId: number;
    interfaceId: number;
    prefix: string;
    dnsName?: string;
    /** This run created the interface: it has no address unless an earlier attempt made one (no look needed). */
    newInterface?: boolean;
  }): Promise<{
    address: string;
    ipId: number;
    outcome: WriteOutcome;
    primary: WriteOutcome;
    /** The VM as the primary-address write left it. */
    seen?: SeenVersion;
  }>;
  ensureDnsRecord(input: { type: 'A' | 'PTR'; name: string; address: string }): Promise<{ outcome: WriteOutcome }>;
  /** planned → staged (ETag-guarded); already staged: unchanged. */
  markNetboxStaged(input: {
    netboxId: number;
    /** The VM as this run last read or wrote it: still so, it is moved without a read. */
    seen?: SeenVersion;
  }): Promise<{ outcome: WriteOutcome }>;
}

export interface TeardownActivities {
  /** The Proxmox VM, its NetBox record (by id, else by ferry_vmid), interfaces, addresses, DNS name. */
  readTeardownTarget(input: { vmid: number; netboxId?: number }): Promise<TeardownTarget>;
  /** The target of the last run of this teardown that ended incomplete, if the one before this was such a run. */
  previousTeardown(input: { workflowId: string; runId: string }): Promise<TeardownTarget | undefined>;
  cleanupDns(input: { target: TeardownTarget }): Promise<CleanupOutcome>;
  cleanupKnownHosts(input: { target: TeardownTarget }): Promise<CleanupOutcome>;
  cleanupIps(input: { target: TeardownTarget }): Promise<CleanupOutcome>;
  cleanupInterfaces(input: { target: TeardownTarget }): Promise<CleanupOutcome>;
  cleanupNetboxVm(input: { target: TeardownTarget; after: NetboxAfterTeardown }): Promise<CleanupOutcome>;
}
