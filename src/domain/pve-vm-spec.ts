/**
 * A Proxmox VM as ferry asks for it at creation, typed: domain rules build it (migration's shell and
 * live import, provisioning's bare VM), activities pass it on, and only the Proxmox client turns it
 * into PVE's parameters.
 */

/** NIC models PVE accepts for `netN`. */
export const NIC_MODELS = [
  'e1000',
  'e1000-82540em',
  'e1000-82544gc',
  'e1000-82545em',
  'e1000e',
  'i82551',
  'i82557b',
  'i82559er',
  'ne2k_isa',
  'ne2k_pci',
  'pcnet',
  'rtl8139',
  'virtio',
  'vmxnet3',
] as const;
export type NicModel = (typeof NIC_MODELS)[number];

export interface NicSpec {
  model?: NicModel;
  bridge: string;
  /** Keep the current MAC when omitted (a new NIC gets one from PVE, prefix BC:24:11). */
  macaddr?: string;
  tag?: number;
  trunks?: number[];
  firewall?: boolean;
  linkDown?: boolean;
  mtu?: number;
  queues?: number;
  rate?: number;
}

/** A NIC in its slot (`net0`, …). */
export interface SlotNicSpec extends NicSpec {
  slot: string;
}

/** A disk created with the VM by copying `source` (`import-from`: a volume id, or a path for root@pam). */
export interface ImportFromDiskSpec {
  /** `scsi0`, … */
  slot: string;
  /** The storage the copy lands on. */
  storage: string;
  /** `nfs-migration:import/app01.vmdk` or `/mnt/pve/nfs-migration/app01/app01.vmdk`. */
  source: string;
}

/** The EFI vars disk, created with the VM (OVMF needs it from the start). */
export interface EfiDiskSpec {
  storage: string;
  efitype?: '2m' | '4m';
  preEnrolledKeys?: boolean;
}

/** A CD/DVD drive (`ide2: none,media=cdrom` or `ide2: local:iso/x.iso,media=cdrom`). */
export interface CdromDriveSpec {
  /** `ide2`, … */
  slot: string;
  /** The ISO volume in the drive (`local:iso/x.iso`); an empty drive when omitted. */
  iso?: string;
}

/** A new TPM state volume (`tpmstate0`), allocated by PVE (4 MiB) on `storage`. */
export interface TpmStateSpec {
  storage: string;
  version: 'v1.2' | 'v2.0';
}

export interface VmShellSpec {
  node: string;
  vmid: number;
  name?: string;
  /** `q35`, `pc-q35-9.2+pve1`, … */
  machine?: string;
  bios?: 'seabios' | 'ovmf';
  efidisk?: EfiDiskSpec;
  /** A new, empty TPM (there is no way to bring a TPM's secrets along). */
  tpmstate?: TpmStateSpec;
  /** CD/DVD drives, created with the VM. */
  cdroms?: CdromDriveSpec[];
  cores?: number;
  sockets?: number;
  /** Set when sockets × cores exceeds the vCPU count the guest should see. */
  vcpus?: number;
  /** MiB */
  memory?: number;
  ostype?: string;
  scsihw?: string;
  /** `true`, or a property string such as `enabled=1,fstrim_cloned_disks=1`. */
  agent?: boolean | string;
  onboot?: boolean;
  tags?: string[];
  /** `order=scsi0;net0` */
  boot?: string;
  /** `source=/dev/urandom` */
  rng0?: string;
  args?: string;
  description?: string;
  nics?: SlotNicSpec[];
  /** Disks copied in at creation. */
  importDisks?: ImportFromDiskSpec[];
  /**
   * Live import (PVE 8.2+, creation only): PVE starts the VM as soon as its disks exist and streams the
   * `import-from` disks in behind it; the config holds `lock: import` until the copy is done, and the
   * create task ends only then. Needs at least one disk in `importDisks` (PVE ignores it otherwise).
   */
  liveRestore?: boolean;
  /** Any further creation options, passed as they are (`true`/`false` as PVE's 1/0). */
  extra?: Record<string, string | number | boolean | undefined>;
}
