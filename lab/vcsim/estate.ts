import type { GuestVmConfig } from '../guest-image/per-vm-config';
import type { GuestVariant } from '../guest-image/paths';
import type { VmwareFirmware } from '../vmware-guest/paths';

/**
 * Which guest a lab VM carries: the lab image (`mac`, `ens192`: lab/guest-image, boots on Proxmox as it
 * is) or the VMware-native guest (`vmware-bios`, `vmware-efi`: lab/vmware-guest, boots on Proxmox only
 * once converted).
 */
export type LabGuestVariant = GuestVariant | `vmware-${VmwareFirmware}`;

/** The firmware of a VMware-native variant, or undefined for the lab image. */
export function vmwareFirmwareOf(variant: LabGuestVariant): VmwareFirmware | undefined {
  return variant === 'vmware-bios' ? 'bios' : variant === 'vmware-efi' ? 'efi' : undefined;
}

/**
 * The lab's vCenter estate, as data: what the builder creates and what tests and docs refer to. VM
 * disks live on `nfs-migration` (the NFS export Proxmox also mounts) except mig-legacy01's, which stay
 * on LocalDS_0: vcsim's RelocateVM_Task changes only the VM's `datastore` property, never disk paths,
 * so that VM is the one whose cutover must be refused.
 */
export const ESTATE = {
  datacenter: 'DC0',
  cluster: 'DC0_C0',
  clusterHosts: ['DC0_C0_H0', 'DC0_C0_H1', 'DC0_C0_H2'],
  standaloneHost: 'DC0_H0',
  switchName: 'DSwitch-Mig',
  portgroups: {
    vlan100: 'PG-VLAN100',
    vlan200: 'PG-VLAN200',
    trunk: 'PG-TRUNK',
    pvlan: 'PG-PVLAN',
    untagged: 'PG-NOVLAN',
  },
  trunkRanges: [
    { start: 100, end: 200 },
    { start: 300, end: 310 },
  ],
  pvlanId: 501,
  /** The standard-switch network every vcsim host has. */
  standardNetwork: 'VM Network',
  migrationDatastore: 'nfs-migration',
  localDatastore: 'LocalDS_0',
  folders: ['apps', 'db', 'infra', 'templates', 'scale'],
  /** A vSphere tag on some VMs (attached at each start: tags are not part of a saved estate). */
  tags: { category: 'ferry', tag: 'lab-wave', vms: ['mig-web01', 'mig-db01'] },
  scaleFolder: 'scale',
} as const;

/**
 * A lab VM that carries a real guest as its first disk: a copy of its image's `variant`, with the
 * hostname and each NIC's MAC and address written into it (each image's per-vm-config). The
 * VM's NICs carry the same MACs (`nics[i].mac`), and vSphere guest customization gives vcsim the same
 * addresses, which it then reports in `guest.net` as VMware Tools would.
 */
export interface LabGuest {
  variant: LabGuestVariant;
  hostname: string;
  /** One per NIC, in the VM's NIC order. */
  addresses: Array<{ address: string; gateway?: string }>;
}

export interface NamedVmSpec {
  name: string;
  folder: string;
  host: string;
  firmware: 'bios' | 'efi';
  cpus: number;
  coresPerSocket?: number;
  memoryMb: number;
  guestId: string;
  controller: 'pvscsi' | 'lsilogic';
  /** `mac`: a fixed (manual) MAC, else vcsim generates one. */
  nics: Array<{ network: string; adapter: 'vmxnet3' | 'e1000' | 'e1000e'; mac?: string }>;
  /**
   * `rdm`: a physical-mode raw device mapping of this LUN (see build-estate: vcsim cannot create one).
   * `guestImage`: the VM's copy of the lab guest (see `guest`); its size is the image's virtual size.
   */
  disks: Array<{ gb: number; mode?: 'independent_persistent'; rdm?: string } | { guestImage: true }>;
  /** Where the disks are. */
  datastore: string;
  /**
   * Where the VM's home is, when not with its disks. The translatable VMs live on LocalDS_0 with their
   * disks already on nfs-migration, so their storage vMotion is a real vcsim task (which moves only the
   * VM's datastore property) and the disk paths Proxmox reads are right afterwards.
   */
  homeDatastore?: string;
  snapshot?: string;
  template?: boolean;
  poweredOn: boolean;
  guest?: LabGuest;
}

const P = ESTATE.portgroups;

/** The lab guests' networks (documentation ranges): VLAN 100 and VLAN 200, gateway .1 on each. */
export const GUEST_NETWORKS = {
  vlan100: { prefix: '198.51.100.0/24', gateway: '198.51.100.1' },
  vlan200: { prefix: '203.0.113.0/24', gateway: '203.0.113.1' },
} as const;

export const NAMED_VMS: readonly NamedVmSpec[] = [
  {
    name: 'mig-web01',
    folder: 'apps',
    host: 'DC0_C0_H0',
    firmware: 'efi',
    cpus: 4,
    memoryMb: 8192,
    guestId: 'ubuntu64Guest',
    controller: 'pvscsi',
    nics: [
      { network: P.vlan100, adapter: 'vmxnet3' },
      { network: P.vlan200, adapter: 'e1000e' },
      { network: P.vlan100, adapter: 'vmxnet3' },
    ],
    disks: [{ gb: 20 }, { gb: 50 }],
    datastore: ESTATE.migrationDatastore,
    homeDatastore: ESTATE.localDatastore,
    poweredOn: true,
  },
  {
    name: 'mig-db01',
    folder: 'db',
    host: 'DC0_C0_H1',
    firmware: 'bios',
    cpus: 4,
    coresPerSocket: 2,
    memoryMb: 16384,
    guestId: 'rhel8_64Guest',
    controller: 'lsilogic',
    nics: [{ network: P.vlan200, adapter: 'e1000' }],
    disks: [{ gb: 40 }, { gb: 10 }],
    datastore: ESTATE.migrationDatastore,
    homeDatastore: ESTATE.localDatastore,
    poweredOn: false,
  },
  {
    name: 'mig-snap01',
    folder: 'apps',
    host: 'DC0_C0_H1',
    firmware: 'bios',
    cpus: 2,
    memoryMb: 4096,
    guestId: 'debian11_64Guest',
    controller: 'pvscsi',
    nics: [{ network: P.vlan100, adapter: 'vmxnet3' }],
    disks: [{ gb: 16 }],
    datastore: ESTATE.migrationDatastore,
    snapshot: 'before-upgrade',
    poweredOn: true,
  },
  {
    name: 'mig-indep01',
    folder: 'apps',
    host: 'DC0_C0_H2',
    firmware: 'bios',
    cpus: 2,
    memoryMb: 4096,
    guestId: 'centos8_64Guest',
    controller: 'pvscsi',
    nics: [{ network: P.vlan200, adapter: 'vmxnet3' }],
    disks: [{ gb: 16 }, { gb: 8, mode: 'independent_persistent' }],
    datastore: ESTATE.migrationDatastore,
    poweredOn: true,
  },
  {
    name: 'mig-std01',
    folder: 'infra',
    host: 'DC0_H0',
    firmware: 'bios',
    cpus: 1,
    memoryMb: 2048,
    guestId: 'otherLinux64Guest',
    controller: 'pvscsi',
    nics: [{ network: ESTATE.standardNetwork, adapter: 'e1000' }],
    disks: [{ gb: 8 }],
    datastore: ESTATE.migrationDatastore,
    poweredOn: true,
  },
  {
    name: 'mig-router01',
    folder: 'infra',
    host: 'DC0_C0_H2',
    firmware: 'bios',
    cpus: 2,
    memoryMb: 2048,
    guestId: 'otherLinux64Guest',
    controller: 'pvscsi',
    nics: [{ network: P.trunk, adapter: 'vmxnet3' }],
    disks: [{ gb: 4 }],
    datastore: ESTATE.migrationDatastore,
    poweredOn: true,
  },
  {
    name: 'mig-dmz01',
    folder: 'infra',
    host: 'DC0_C0_H0',
    firmware: 'bios',
    cpus: 1,
    memoryMb: 2048,
    guestId: 'debian11_64Guest',
    controller: 'pvscsi',
    nics: [{ network: P.pvlan, adapter: 'vmxnet3' }],
    disks: [{ gb: 8 }],
    datastore: ESTATE.migrationDatastore,
    poweredOn: true,
  },
  {
    name: 'mig-rdm01',
    folder: 'db',
    host: 'DC0_C0_H1',
    firmware: 'bios',
    cpus: 2,
    memoryMb: 8192,
    guestId: 'rhel8_64Guest',
    controller: 'lsilogic',
    nics: [{ network: P.vlan100, adapter: 'vmxnet3' }],
    disks: [{ gb: 16 }, { gb: 64, rdm: '/vmfs/devices/disks/naa.600508b1001c3a7f9f4f5c2e8d1b0a01' }],
    datastore: ESTATE.migrationDatastore,
    poweredOn: false,
  },
  {
    name: 'mig-legacy01',
    folder: 'apps',
    host: 'DC0_C0_H0',
    firmware: 'bios',
    cpus: 2,
    memoryMb: 4096,
    guestId: 'windows2019srv_64Guest',
    controller: 'lsilogic',
    nics: [{ network: P.vlan100, adapter: 'e1000e' }],
    disks: [{ gb: 32 }],
    datastore: ESTATE.localDatastore,
    poweredOn: true,
  },
  {
    name: 'mig-tmpl01',
    folder: 'templates',
    host: 'DC0_C0_H2',
    firmware: 'efi',
    cpus: 2,
    memoryMb: 4096,
    guestId: 'ubuntu64Guest',
    controller: 'pvscsi',
    nics: [{ network: P.vlan100, adapter: 'vmxnet3' }],
    disks: [{ gb: 20 }],
    datastore: ESTATE.migrationDatastore,
    template: true,
    poweredOn: false,
  },
  // Real guests (lab/guest-image): booted from a per-VM copy of the guest disk on nfs-migration.
  {
    name: 'mig-app01',
    folder: 'apps',
    host: 'DC0_C0_H1',
    firmware: 'bios',
    cpus: 1,
    memoryMb: 1024,
    guestId: 'debian12_64Guest',
    controller: 'pvscsi',
    nics: [{ network: P.vlan100, adapter: 'vmxnet3', mac: '00:50:56:01:00:01' }],
    disks: [{ guestImage: true }],
    datastore: ESTATE.migrationDatastore,
    homeDatastore: ESTATE.localDatastore,
    poweredOn: true,
    guest: {
      variant: 'mac',
      hostname: 'mig-app01',
      addresses: [{ address: '198.51.100.21/24', gateway: GUEST_NETWORKS.vlan100.gateway }],
    },
  },
  {
    name: 'mig-app02',
    folder: 'apps',
    host: 'DC0_C0_H2',
    firmware: 'efi',
    cpus: 2,
    memoryMb: 2048,
    guestId: 'debian12_64Guest',
    controller: 'pvscsi',
    nics: [
      { network: P.vlan100, adapter: 'vmxnet3', mac: '00:50:56:01:00:02' },
      { network: P.vlan200, adapter: 'vmxnet3', mac: '00:50:56:01:00:03' },
    ],
    disks: [{ guestImage: true }],
    datastore: ESTATE.migrationDatastore,
    homeDatastore: ESTATE.localDatastore,
    poweredOn: true,
    guest: {
      variant: 'mac',
      hostname: 'mig-app02',
      addresses: [
        { address: '198.51.100.22/24', gateway: GUEST_NETWORKS.vlan100.gateway },
        { address: '203.0.113.22/24' },
      ],
    },
  },
  {
    // Debian installed on VMware (lab/vmware-guest): GRUB, open-vm-tools, ifupdown bound to ens192, an
    // initramfs without virtio drivers. It boots on Proxmox only once converted (migration.conversion).
    name: 'mig-ens01',
    folder: 'apps',
    host: 'DC0_C0_H0',
    firmware: 'bios',
    cpus: 1,
    memoryMb: 1024,
    guestId: 'debian12_64Guest',
    controller: 'pvscsi',
    nics: [{ network: P.vlan100, adapter: 'vmxnet3', mac: '00:50:56:01:00:04' }],
    disks: [{ guestImage: true }],
    datastore: ESTATE.migrationDatastore,
    homeDatastore: ESTATE.localDatastore,
    poweredOn: true,
    guest: {
      variant: 'vmware-bios',
      hostname: 'mig-ens01',
      addresses: [{ address: '198.51.100.23/24', gateway: GUEST_NETWORKS.vlan100.gateway }],
    },
  },
  {
    // The same on UEFI (GRUB through shim at EFI/debian, no removable-media path), with two NICs: ens192 and ens224.
    name: 'mig-ens02',
    folder: 'apps',
    host: 'DC0_C0_H1',
    firmware: 'efi',
    cpus: 1,
    memoryMb: 1024,
    guestId: 'debian12_64Guest',
    controller: 'pvscsi',
    nics: [
      { network: P.vlan100, adapter: 'vmxnet3', mac: '00:50:56:01:00:05' },
      { network: P.vlan200, adapter: 'vmxnet3', mac: '00:50:56:01:00:06' },
    ],
    disks: [{ guestImage: true }],
    datastore: ESTATE.migrationDatastore,
    homeDatastore: ESTATE.localDatastore,
    poweredOn: true,
    guest: {
      variant: 'vmware-efi',
      hostname: 'mig-ens02',
      addresses: [
        { address: '198.51.100.24/24', gateway: GUEST_NETWORKS.vlan100.gateway },
        { address: '203.0.113.24/24' },
      ],
    },
  },
];

/** The lab VMs that carry the real guest. */
export const GUEST_VMS = NAMED_VMS.filter((vm): vm is NamedVmSpec & { guest: LabGuest } => vm.guest !== undefined);

/** The guest settings written into a VM's copy of the guest disk: hostname, and each NIC's MAC and address. */
export function guestVmConfig(vm: NamedVmSpec & { guest: LabGuest }): GuestVmConfig {
  return {
    hostname: vm.guest.hostname,
    nics: vm.guest.addresses.map((a, i) => {
      const mac = vm.nics[i]?.mac;
      if (!mac) throw new Error(`lab estate: ${vm.name} NIC ${i} carries a guest address but has no fixed MAC`);
      return { mac, address: a.address, ...(a.gateway ? { gateway: a.gateway } : {}) };
    }),
  };
}

/** Extra VMs for scale: `scale-0001` … in folder `scale`, alternating VLAN 100/200, one 1 GiB disk each, home on LocalDS_0. */
export function scaleVmName(i: number): string {
  return `scale-${String(i).padStart(4, '0')}`;
}

export const SCALE_DISK_BYTES = 1024 ** 3;

/**
 * The lab guests' static addresses by MAC, with the guest ports to forward (the probe, SSH), as the
 * Proxmox simulator's user-mode networks need them (its PUT /_sim/guest-networks): what a real network
 * carries for whichever VM configures them.
 */
export function guestNetworksByMac(
  ports: number[],
): Record<string, { address: string; gateway?: string; ports: number[] }> {
  const byMac: Record<string, { address: string; gateway?: string; ports: number[] }> = {};
  for (const vm of GUEST_VMS) {
    vm.guest.addresses.forEach((a, i) => {
      const mac = vm.nics[i]?.mac;
      if (mac) byMac[mac.toLowerCase()] = { address: a.address, ...(a.gateway ? { gateway: a.gateway } : {}), ports };
    });
  }
  return byMac;
}
