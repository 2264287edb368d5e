import { parsePropertyString } from '../pve-property-string';
import type { NetboxVmRecord, RecordDisk, RecordInterface, SpecDefaults } from './spec';

/**
 * A NetBox VM's disks and NICs as spec input: its virtual disks and interfaces when the record has them
 * (each named after its Proxmox slot), else one disk (scsi0, the VM's `disk`) and one NIC (net0). The
 * one translation of NetBox hardware: provisioning builds from it, and the day-2 change plan compares a
 * built VM with it.
 */

/** Disk options of a disk whose record names none (ferry_disk_options). */
export const DEFAULT_DISK_OPTIONS: Readonly<Record<string, string | number>> = { iothread: 1, discard: 'on' };

/** A value and whether the NetBox record chose it (else ferry.yaml's default did). */
export interface Sourced<T> {
  value: T;
  fromNetbox: boolean;
}

/** A disk's storage: the virtual disk's ferry_storage, else the VM's, else provisioning.storage. */
export function diskStorageOf(record: NetboxVmRecord, disk: RecordDisk | undefined, defaults: SpecDefaults) {
  const named = disk?.fields.storage ?? record.fields.storage;
  return { value: named ?? defaults.storage, fromNetbox: named !== undefined } satisfies Sourced<string>;
}

/** A NIC's bridge or VNet: the interface's ferry_network, else (net0 only) the VM's, else provisioning.network. */
export function nicNetworkOf(
  record: NetboxVmRecord,
  slot: string,
  iface: RecordInterface | undefined,
  defaults: SpecDefaults,
) {
  const named = iface?.fields.network ?? (slot === 'net0' ? record.fields.network : undefined);
  return { value: named ?? defaults.network, fromNetbox: named !== undefined } satisfies Sourced<string>;
}

/** The record's interfaces that are Proxmox NICs: sub-interfaces (with a parent) are the guest's own. */
export function nicInterfaces(record: NetboxVmRecord): RecordInterface[] {
  return (record.interfaces ?? []).filter((i) => i.parentId === undefined);
}

export interface HardwareInput<T> {
  items: T[];
  problems: string[];
}

type DiskInput = { slot: string; storage: string; sizeGiB: number; importFrom?: string; options: unknown };

/** The spec's disks: one per virtual disk, else scsi0 from the VM's `disk`; ferry_image makes scsi0. */
export function recordDisks(record: NetboxVmRecord, defaults: SpecDefaults): HardwareInput<DiskInput> {
  const image = record.fields.image;
  const disk = (slot: string, sizeMB: number, source?: RecordDisk): DiskInput => ({
    slot,
    storage: diskStorageOf(record, source, defaults).value,
    sizeGiB: Math.ceil(sizeMB / 1024),
    ...(image && slot === 'scsi0' ? { importFrom: image } : {}),
    options: DEFAULT_DISK_OPTIONS,
  });
  if (!record.disks?.length) return { items: record.diskMB ? [disk('scsi0', record.diskMB)] : [], problems: [] };
  const problems: string[] = [];
  const items = record.disks.map((d) => {
    const options = diskOptionsOf(d);
    if (typeof options === 'string') problems.push(options);
    return { ...disk(d.name, d.sizeMB, d), options: typeof options === 'string' ? {} : options };
  });
  return { items, problems };
}

/** ferry_disk_options as a map (the spec checks the keys), or the problem with it. */
function diskOptionsOf(disk: RecordDisk): Record<string, string | number> | string {
  if (disk.fields.options === undefined) return DEFAULT_DISK_OPTIONS;
  try {
    return parsePropertyString(disk.fields.options);
  } catch (err) {
    return `virtual disk "${disk.name}": custom field ferry_disk_options: ${(err as Error).message}`;
  }
}

type NicInput = Record<string, unknown> & { slot: string };

/** The spec's NICs: one per interface (not a sub-interface), else net0 with the VM's ferry_network and ferry_vlan. */
export function recordNics(record: NetboxVmRecord, defaults: SpecDefaults): HardwareInput<NicInput> {
  const interfaces = nicInterfaces(record);
  const base = (slot: string, iface?: RecordInterface) => ({
    slot,
    network: nicNetworkOf(record, slot, iface, defaults).value,
    model: defaults.nicModel,
  });
  if (interfaces.length === 0) {
    const vlan = record.fields.vlan;
    return { items: [{ ...base('net0'), ...(vlan !== undefined ? { vlan } : {}) }], problems: [] };
  }
  const problems: string[] = [];
  const items = interfaces.map((iface) => {
    const vlans = vlansOf(record, iface);
    if (typeof vlans === 'string') problems.push(vlans);
    return { ...base(iface.name, iface), ...(typeof vlans === 'string' ? {} : vlans), ...nicOptionsOf(iface) };
  });
  return { items, problems };
}

/**
 * The Proxmox `tag` and `trunks` of an interface's 802.1Q mode: Access is its untagged VLAN, Tagged adds
 * its tagged VLANs as trunks, Tagged (All) passes every VLAN (no tag). No mode: net0 takes the VM's ferry_vlan.
 */
function vlansOf(record: NetboxVmRecord, iface: RecordInterface): { vlan?: number; trunks?: number[] } | string {
  const untagged = iface.untaggedVlan !== undefined ? { vlan: iface.untaggedVlan } : {};
  switch (iface.mode) {
    case undefined:
      return iface.name === 'net0' && record.fields.vlan !== undefined ? { vlan: record.fields.vlan } : {};
    case 'access':
      return untagged;
    case 'tagged': {
      const tagged = [...new Set(iface.taggedVlans)].sort((a, b) => a - b);
      return { ...untagged, ...(tagged.length > 0 ? { trunks: tagged } : {}) };
    }
    case 'tagged-all':
      if (iface.untaggedVlan === undefined) return {};
      return `interface "${iface.name}": 802.1Q mode Tagged (All) with untagged VLAN ${iface.untaggedVlan}: a Proxmox NIC with a tag carries only that VLAN; use mode Tagged and list the VLANs`;
    default:
      return `interface "${iface.name}": 802.1Q mode ${iface.mode}: ferry builds access, tagged and tagged-all NICs only`;
  }
}

function nicOptionsOf(iface: RecordInterface): Record<string, unknown> {
  const f = iface.fields;
  return {
    ...(iface.mtu !== undefined ? { mtu: iface.mtu } : {}),
    ...(iface.enabled ? {} : { linkDown: true }),
    ...(f.rate !== undefined ? { rate: f.rate } : {}),
    ...(f.queues !== undefined ? { queues: f.queues } : {}),
    ...(f.firewall !== undefined ? { firewall: f.firewall } : {}),
    ...(iface.mac !== undefined ? { mac: iface.mac } : {}),
  };
}

const DISK_SOURCES: Record<string, string> = {
  slot: 'name (a Proxmox slot: scsi0–30, virtio0–15, sata0–5)',
  storage: "custom field ferry_storage (or the VM's, or provisioning.storage)",
  sizeGiB: 'size (MB)',
  options: 'custom field ferry_disk_options',
  importFrom: 'custom field ferry_image (of the VM)',
};

const NIC_SOURCES: Record<string, string> = {
  slot: 'name (a Proxmox slot: net0–net31)',
  network: 'custom field ferry_network',
  vlan: 'untagged VLAN',
  trunks: 'tagged VLANs',
  mtu: 'MTU',
  rate: 'custom field ferry_rate',
  queues: 'custom field ferry_queues',
  firewall: 'custom field ferry_firewall',
  mac: 'primary MAC address',
};

/** Names a spec path after the virtual disk or interface it came from (`disks.1.sizeGiB` → `virtual disk "scsi1" size (MB)`). */
export function hardwareSource(record: NetboxVmRecord, path: string): string | undefined {
  const m = /^(disks|nics)\.(\d+)(?:\.(\w+))?/.exec(path);
  if (!m) return undefined;
  const [, list, index, key] = m;
  const item = list === 'disks' ? record.disks?.[Number(index)] : nicInterfaces(record)[Number(index)];
  if (!item) return undefined;
  const what = list === 'disks' ? `virtual disk "${item.name}"` : `interface "${item.name}"`;
  const sources = list === 'disks' ? DISK_SOURCES : NIC_SOURCES;
  return key ? `${what} ${sources[key] ?? key}` : what;
}
