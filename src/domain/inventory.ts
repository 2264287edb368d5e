/**
 * What vCenter discovery returns: typed records of VMs and distributed portgroups. Produced by
 * src/vsphere (discovery), consumed by the migration rules in src/domain. Plain data, no I/O.
 */

export interface ManagedRef {
  /** vCenter managed object id, e.g. `vm-42`, `host-12`, `domain-c7`. Never assume a pattern. */
  moid: string;
  name: string;
}

/** How a NIC is connected on the VMware side. */
export type NicBacking =
  /** `portKey`: the NIC is bound to that distributed port (the portgroup was then read from the port). */
  | { kind: 'dvportgroup'; portgroupKey: string; switchUuid?: string; portKey?: string }
  | { kind: 'network'; networkName: string; networkMoid?: string }
  | { kind: 'opaque'; opaqueNetworkId: string; opaqueNetworkType: string }
  | { kind: 'other'; backingType: string };

export interface VmNic {
  /** Device key within the VM (e.g. 4000). */
  key: number;
  /** Device label, e.g. `Network adapter 1`. */
  label: string;
  /** vSphere device type without the `Virtual` prefix, lower case: `vmxnet3`, `e1000`, `e1000e`, `vmxnet2`, `pcnet32`, … */
  deviceType: string;
  /** As vCenter reports it (lower case, colon separated). */
  macAddress: string;
  backing: NicBacking;
}

export type DiskMode =
  'persistent' | 'nonpersistent' | 'undoable' | 'independent_persistent' | 'independent_nonpersistent' | 'append';

export interface VmDisk {
  key: number;
  label: string;
  /** Controller type without the `Virtual` prefix, lower case: `pvscsi`, `lsilogic`, `lsilogicsas`, `buslogic`, `nvme`, `ahci`, `ide`. */
  controllerType: string;
  controllerKey: number;
  controllerBusNumber: number;
  unitNumber: number;
  capacityBytes: number;
  /** Backing file as vCenter writes it: `[datastore] dir/file.vmdk`. */
  fileName: string;
  datastore?: ManagedRef;
  thinProvisioned?: boolean;
  diskMode: DiskMode | string;
  /** Present for raw device mappings. */
  rdm?: { compatibilityMode: 'physicalMode' | 'virtualMode' | string; deviceName?: string };
}

/** What a CD/DVD drive is connected to on the VMware side. */
export type CdromBacking =
  /** `[datastore] path/file.iso` (VirtualCdromIsoBackingInfo). */
  | { kind: 'iso'; fileName: string }
  /** A CD drive of the ESXi host (VirtualCdromAtapiBackingInfo, VirtualCdromPassthroughBackingInfo). */
  | { kind: 'host-device'; deviceName?: string }
  /** The drive of the client running the console (VirtualCdromRemoteAtapi/RemotePassthroughBackingInfo): vCenter's "empty" drive. */
  | { kind: 'client-device' }
  | { kind: 'none' }
  | { kind: 'other'; backingType: string };

export interface VmCdrom {
  key: number;
  /** Device label, e.g. `CD/DVD drive 1`. */
  label: string;
  /** Controller type as for disks (`ide`, `ahci`, …). */
  controllerType: string;
  controllerBusNumber: number;
  unitNumber: number;
  /** Connected when the VM powers on (`connectable.startConnected`; true when vCenter says nothing). */
  startConnected: boolean;
  backing: CdromBacking;
}

/** A virtual TPM (VirtualTPM): its secrets are sealed in the VM's encrypted files and cannot be moved. */
export interface VmTpm {
  key: number;
  label: string;
}

export type PowerState = 'poweredOn' | 'poweredOff' | 'suspended';

/** Where a guest's addresses were read. */
export type GuestAddressSource =
  /** VMware Tools' report, `guest.net` (only while the guest runs Tools). */
  | 'tools'
  /** The VM's `guestinfo.ferry.ipaddress.<n>` configuration options (n: the NIC's position, from 0). */
  | 'extraConfig';

/** The addresses the guest had on one NIC while it ran on VMware. */
export interface GuestNicAddresses {
  /** The NIC's MAC as in `VmNic.macAddress` (lower case). */
  mac: string;
  /** `198.51.100.21/24`, or without the prefix length where vSphere gave none. Link-local addresses are left out. */
  addresses: string[];
  source: GuestAddressSource;
}

export interface VmRecord {
  moid: string;
  name: string;
  instanceUuid?: string;
  guestId: string;
  firmware: 'bios' | 'efi';
  template: boolean;
  numCpu: number;
  numCoresPerSocket: number;
  memoryMb: number;
  powerState: PowerState;
  host?: ManagedRef;
  cluster?: ManagedRef;
  /** Inventory path of the VM's folder, e.g. `/DC0/vm/apps`. */
  folder?: string;
  hasSnapshot: boolean;
  /**
   * Datastores holding any of the VM's files (home and disks): vCenter's `datastore` property. Storage
   * vMotion is done when this is only the target.
   */
  datastores?: string[];
  nics: VmNic[];
  disks: VmDisk[];
  /**
   * The guest's addresses per NIC, in NIC order: from VMware Tools when it reports any for the VM's
   * NICs, else from the VM's `guestinfo.ferry.ipaddress.<n>` options; absent when neither knows one.
   */
  guestAddresses?: GuestNicAddresses[];
  /** The guest's host name as VMware Tools reports it (`guest.hostName`). */
  guestHostName?: string;
  /** CD/DVD drives; absent when the VM has none (and in records read before ferry looked at them). */
  cdroms?: VmCdrom[];
  /** Present when the VM has a virtual TPM. */
  tpm?: VmTpm;
}

/** A distributed portgroup's VLAN setting, classified. */
export type Vlan =
  | { kind: 'access'; vlanId: number }
  | { kind: 'trunk'; ranges: Array<{ start: number; end: number }> }
  | { kind: 'pvlan'; pvlanId: number }
  | { kind: 'none' };

export interface PortgroupRecord {
  /** Portgroup key (moid), matched by `NicBacking.portgroupKey`. */
  key: string;
  name: string;
  switchName: string;
  switchUuid?: string;
  vlan: Vlan;
  /** The DVS uplink portgroup (carries no VMs). */
  uplink: boolean;
}

export interface DatastoreRecord extends ManagedRef {
  /** `vmfs`, `NFS`, `NFS41`, `vsan`, … */
  type?: string;
  url?: string;
  /** `summary.capacity` and `summary.freeSpace`, in bytes (placement checks the migration datastore's room). */
  capacityBytes?: number;
  freeBytes?: number;
}

export interface Inventory {
  /** The vCenter this came from (host name), used in workflow ids. */
  vcenter: string;
  vms: VmRecord[];
  portgroups: PortgroupRecord[];
  datastores: DatastoreRecord[];
}
