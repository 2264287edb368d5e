import { bootOrderOf, isCdromDrive } from '../boot-order';
import { diskSizeBytes } from '../pve-disk-size';
import { parseNic } from '../pve-nic';
import { parsePropertyString } from '../pve-property-string';
import { hotplugFeatures, type HotplugFeature } from './hotplug';

/**
 * A VM config (`GET …/config` values, current or with pending applied) read as the fields ferry
 * manages: CPU, memory, the attached disks (not CD drives, not the cloud-init drive) and the NICs.
 */

export interface DiskView {
  slot: string;
  /** `local-lvm:vm-100-disk-1` */
  volume: string;
  /** The volume's storage (before the colon); absent for a path. */
  storage?: string;
  sizeBytes?: number;
  /** The drive's other options as written (`iothread`, `cache`, …). */
  options: Record<string, string>;
}

export interface NicView {
  slot: string;
  model: string;
  mac: string;
  /** Every option as written, besides model and MAC. */
  options: Record<string, string>;
}

export interface VmConfigView {
  sockets: number;
  cores: number;
  /** `vcpus` as set; absent: sockets × cores. */
  vcpus?: number;
  memoryMiB: number;
  balloonMiB?: number;
  hotplug: ReadonlySet<HotplugFeature>;
  numa: boolean;
  /** The boot order's devices (`order=scsi0;ide2;net0`). */
  bootOrder: string[];
  disks: Map<string, DiskView>;
  nics: Map<string, NicView>;
  /** Slots holding a CD drive or the cloud-init drive: not disks ferry manages. */
  mediaSlots: Set<string>;
  /** `unusedN` → volume. */
  unused: Map<string, string>;
  /** The VM has snapshots (its config names a `parent`). */
  hasSnapshots: boolean;
}

const DISK_SLOT = /^(scsi|virtio|sata|ide)\d+$/;
const NIC_SLOT = /^net\d+$/;
/** qemu-server's default memory (Memory.pm $memory_fmt current default). */
const DEFAULT_MEMORY_MIB = 512;

/** Reads a config; a value qemu-server would not have written is an error naming the key. */
export function readVmConfig(values: Readonly<Record<string, string>>): VmConfigView {
  const view: VmConfigView = {
    sockets: int(values, 'sockets') ?? 1,
    cores: int(values, 'cores') ?? 1,
    memoryMiB: memoryOf(values.memory),
    hotplug: hotplugFeatures(values.hotplug),
    numa: values.numa === '1',
    bootOrder: bootOrderOf(values.boot),
    disks: new Map(),
    nics: new Map(),
    mediaSlots: new Set(),
    unused: new Map(),
    hasSnapshots: values.parent !== undefined,
    ...optionalInts(values),
  };
  for (const [key, value] of Object.entries(values)) readDevice(view, key, value);
  return view;
}

function optionalInts(values: Readonly<Record<string, string>>): Pick<VmConfigView, 'vcpus' | 'balloonMiB'> {
  const vcpus = int(values, 'vcpus');
  const balloon = int(values, 'balloon');
  return { ...(vcpus !== undefined ? { vcpus } : {}), ...(balloon !== undefined ? { balloonMiB: balloon } : {}) };
}

function readDevice(view: VmConfigView, key: string, value: string): void {
  if (NIC_SLOT.test(key)) {
    const nic = parseNic(value);
    view.nics.set(key, { slot: key, model: nic.model, mac: nic.macaddr, options: nic.options });
  } else if (/^unused\d+$/.test(key)) {
    view.unused.set(key, parsePropertyString(value, 'file').file ?? value);
  } else if (DISK_SLOT.test(key)) {
    const disk = readDisk(key, value);
    if (disk) view.disks.set(key, disk);
    else view.mediaSlots.add(key);
  }
}

/** A drive value as a disk, or undefined for a CD drive or the cloud-init drive. */
function readDisk(slot: string, value: string): DiskView | undefined {
  if (isCdromDrive(value)) return undefined;
  const { file = '', size, media: _media, ...options } = parsePropertyString(value, 'file');
  const storage = /^([A-Za-z][A-Za-z0-9_.-]*):/.exec(file)?.[1];
  const sizeBytes = size === undefined ? undefined : diskSizeBytes(size);
  return {
    slot,
    volume: file,
    ...(storage ? { storage } : {}),
    ...(sizeBytes !== undefined ? { sizeBytes } : {}),
    options,
  };
}

/** `memory: 2048` or (PVE 8.1+) `memory: current=2048`. */
function memoryOf(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MEMORY_MIB;
  const current = parsePropertyString(value, 'current').current;
  const mib = Number(current);
  if (!current || !Number.isInteger(mib)) throw new Error(`VM config memory: "${value}" is no memory size`);
  return mib;
}

function int(values: Readonly<Record<string, string>>, key: string): number | undefined {
  const value = values[key];
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new Error(`VM config ${key}: "${value}" is not a whole number`);
  return Number(value);
}

/** The vCPUs the guest has: `vcpus`, else sockets × cores. */
export function vcpusOf(view: VmConfigView): number {
  return view.vcpus ?? view.sockets * view.cores;
}
