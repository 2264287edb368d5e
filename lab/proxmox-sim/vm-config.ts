import { existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { simulateCopy } from './copy-log';
import { formatPropertyString, parsePropertyString } from '../../src/proxmox/property-string';
import { fail, paramError } from './api-error';
import type { Cluster, SimVm } from './cluster';
import { convertImage, createImage, imageInfo, type ImageFormat } from './qemu-img';
import { formatDiskSize, parseDiskSize } from '../../src/proxmox/disk-size';
import { parseNic } from '../../src/proxmox/nics';
import { normalisePropertyString } from './schema/property-print';
import { loadSubset } from './schema/subset';
import { schemaFor } from './schema/validate';
import type { TaskContext } from './tasks';
import type { RestoreDrive } from './qemu/live-restore';

/**
 * What qemu-server does with config writes: disks allocated or imported on the storages (real files),
 * replaced or removed disks kept as `unusedN`, NICs completed with a generated MAC, and changes that a
 * running VM cannot take kept pending until the next start.
 */
export const DISK_KEY = /^(ide\d+|sata\d+|scsi\d+|virtio\d+|efidisk0|tpmstate0)$/;
export const UNUSED_KEY = /^unused\d+$/;
const NET_KEY = /^net\d+$/;
/** Applied at once even while the VM runs (hotplug: network, disk; fast-plug: meta options). */
const HOTPLUG = (key: string) =>
  NET_KEY.test(key) ||
  (DISK_KEY.test(key) && !/^(ide|efidisk|tpmstate)/.test(key)) ||
  UNUSED_KEY.test(key) ||
  ['name', 'description', 'tags', 'onboot', 'protection', 'startup', 'lock'].includes(key);

export interface WriteContext {
  cluster: Cluster;
  vm: SimVm;
  user: string;
  /** Set inside a task, for its log and import counting. */
  task?: TaskContext;
  /** A create with live-restore: import-from disks are allocated now and their copy left for later. */
  live?: { imports: LiveImport[] };
}

/**
 * A disk of a live import: its volume exists (empty, full size); `restore` says what streams into it
 * (a real guest's live restore mirrors it, qemu/live-restore.ts; otherwise it is copied).
 */
export interface LiveImport {
  /** The `import-from` as given (the task log names it). */
  source: string;
  /** The disk's size (the live import's progress lines report it). */
  bytes: number;
  restore: RestoreDrive;
}

const ALLOCATION = /^([a-z][a-z0-9\-_.]*[a-z0-9]):(\d+(?:\.\d+)?)$/i;

/** Volume of a disk value (`local:100/vm-100-disk-0.raw,size=4G` → `local:100/vm-100-disk-0.raw`). */
export function volumeOf(value: string): string {
  return parsePropertyString(value, 'file').file ?? '';
}

function isManagedVolume(cluster: Cluster, volid: string): boolean {
  const storage = /^([^:/]+):/.exec(volid)?.[1];
  return !!storage && !!cluster.storages.get(storage) && !/^[^:]+:iso\//.test(volid);
}

export function freeUnusedKey(vm: SimVm): string {
  for (let n = 0; ; n++) if (!(`unused${n}` in vm.config) && !(`unused${n}` in vm.pending)) return `unused${n}`;
}

/** Keeps a detached managed volume as `unusedN` (PVE never deletes a disk it detaches without force). */
function keepAsUnused(ctx: WriteContext, value: string): void {
  const volid = volumeOf(value);
  if (!isManagedVolume(ctx.cluster, volid)) return;
  const referenced = Object.entries(ctx.vm.config).some(
    ([k, v]) => (DISK_KEY.test(k) || UNUSED_KEY.test(k)) && volumeOf(v) === volid,
  );
  if (!referenced) ctx.vm.config[freeUnusedKey(ctx.vm)] = volid;
}

function removeVolume(ctx: WriteContext, value: string): void {
  const volid = volumeOf(value);
  if (!isManagedVolume(ctx.cluster, volid)) return;
  ctx.cluster.storages.remove(ctx.cluster.storages.resolve(volid, ctx.vm.node));
}

const CLOUD_INIT_ALLOCATION = /^([a-z][a-z0-9\-_.]*[a-z0-9]):cloudinit$/i;

/**
 * `<storage>:cloudinit`: qemu-server allocates the VM's cloud-init volume (4 MiB, `vm-<vmid>-cloudinit`)
 * and keeps it as a CD-ROM; its content is made at each start (qemu/cloud-init.ts).
 */
async function allocateCloudInit({ cluster, vm, task }: WriteContext, storageId: string): Promise<string> {
  const storage = cluster.storages.require(storageId);
  const format: ImageFormat =
    storage.type === 'lvmthin'
      ? 'raw'
      : cluster.storages.defaultFormat() === 'vmdk'
        ? 'qcow2'
        : cluster.storages.defaultFormat();
  const volid =
    storage.type === 'lvmthin'
      ? `${storage.id}:vm-${vm.vmid}-cloudinit`
      : `${storage.id}:${vm.vmid}/vm-${vm.vmid}-cloudinit.${format}`;
  const volume = cluster.storages.resolve(volid, vm.node);
  if (!existsSync(volume.file)) {
    mkdirSync(path.dirname(volume.file), { recursive: true });
    await createImage(volume.file, format, 4 * 1024 * 1024);
  }
  task?.log(`${volid}: cloud-init drive allocated`);
  return `${volid},media=cdrom`;
}

/** Turns a disk parameter into the config value: allocates, imports or checks the volume it names. */
export async function prepareDisk(ctx: WriteContext, key: string, value: string): Promise<string> {
  const { cluster, vm } = ctx;
  const props = parsePropertyString(value, 'file');
  const file = props.file!;
  const importFrom = props['import-from'];
  delete props['import-from'];
  // The syntax, type and content checks ran before the worker (drive-checks.ts).
  const cloudinit = CLOUD_INIT_ALLOCATION.exec(file);
  if (cloudinit && cluster.storages.get(cloudinit[1]!)) return allocateCloudInit(ctx, cloudinit[1]!);
  const alloc = ALLOCATION.exec(file);
  if (!alloc || !cluster.storages.get(alloc[1]!)) {
    if (file === 'none' || file === 'cdrom') return value;
    if (file.startsWith('/')) {
      if (ctx.user !== 'root@pam') throw fail('Only root can pass arbitrary filesystem paths.');
      if (!existsSync(file)) throw fail(`unable to find disk image '${file}'`);
      // As qemu-server does for a disk it did not allocate: it reads the size and writes it down.
      if (props.media === 'cdrom') return value;
      const { size: _ignored, ...rest } = props;
      return formatPropertyString({ ...rest, file, size: formatDiskSize((await imageInfo(file)).virtualSize) }, 'file');
    }
    const volume = cluster.storages.resolve(file, vm.node);
    if (!cluster.storages.exists(volume)) throw fail(`volume '${file}' does not exist`);
    // qemu-server's create_disks for an existing volume: its size from the storage (volume_size_info), written down.
    if (props.media === 'cdrom' || volume.format === 'iso') return value;
    const { size: _given, ...rest } = props;
    return formatPropertyString(
      { ...rest, file, size: formatDiskSize((await imageInfo(volume.file, volume.format, true)).virtualSize) },
      'file',
    );
  }

  const storage = cluster.storages.require(alloc[1]!);
  const format = (props.format as ImageFormat | undefined) ?? cluster.storages.defaultFormat();
  if (!cluster.storages.supportsFormat(storage, format))
    throw fail(`unsupported format '${format}' on storage '${storage.id}'`);
  delete props.format;
  const target = cluster.storages.allocateName(storage, vm.node, vm.vmid, format);

  let bytes: number;
  if (importFrom !== undefined) {
    let sourceFile: string;
    let sourceFormat: string | undefined;
    const live = key !== 'efidisk0' ? ctx.live : undefined; // qemu-server never live-imports efidisk0
    if (importFrom.startsWith('/')) {
      if (ctx.user !== 'root@pam') throw fail('Only root can pass arbitrary filesystem paths.');
      if (!existsSync(importFrom) || !statSync(importFrom).isFile())
        throw fail(`import-from: '${importFrom}' does not exist`);
      sourceFile = importFrom;
      await requireSourceSize(importFrom, undefined, true);
    } else {
      const source = cluster.storages.resolve(importFrom, vm.node);
      if (!cluster.storages.exists(source)) throw fail(`volume '${importFrom}' does not exist`);
      sourceFile = source.file;
      sourceFormat = source.format;
      const untrusted = source.vtype === 'import';
      if (live) await requireSourceSize(source.file, source.format, untrusted);
      else {
        const size = await fileSizeInfo(source.file, source.format, untrusted);
        if (!size) throw fail(`cannot import from '${importFrom}' - could not get size of ${importFrom}`);
      }
    }
    if (live) {
      // The others start empty at the source's size.
      const info = await imageInfo(sourceFile);
      bytes = info.virtualSize;
      await createImage(target.file, format, bytes);
      const source = { path: sourceFile, format: (sourceFormat ?? info.format) as ImageFormat };
      live.imports.push({
        source: importFrom,
        bytes,
        restore: { key, volid: target.volid, target: { path: target.file, format }, source },
      });
    } else {
      ctx.task?.log(`importing disk '${importFrom}' to VM ${vm.vmid} ...`);
      ctx.task?.countImport();
      if (ctx.task)
        await simulateCopy(ctx.task, cluster.settings.importTaskMs, (await imageInfo(sourceFile)).virtualSize);
      await convertImage(sourceFile, target.file, format, sourceFormat);
      bytes = (await imageInfo(target.file)).virtualSize;
      ctx.task?.log(`Successfully imported disk as '${key}:${target.volid}'`);
    }
  } else if (key === 'efidisk0') {
    bytes = props.efitype === '4m' ? 528 * 1024 : 128 * 1024;
    await createImage(target.file, format, bytes);
  } else if (key === 'tpmstate0') {
    bytes = 4 * 1024 * 1024;
    await createImage(target.file, format, bytes);
  } else {
    bytes = parseDiskSize(`${alloc[2]}G`);
    if (bytes <= 0) throw paramError({ [key]: 'disk size must be larger than 0' });
    await createImage(target.file, format, bytes);
    ctx.task?.log(`${key}: successfully created disk '${target.volid},size=${formatDiskSize(bytes)}'`);
  }
  delete props.file;
  delete props.size;
  return formatPropertyString({ file: target.volid, ...sortKeys({ ...props, size: formatDiskSize(bytes) }) }, 'file');
}

/**
 * pve-storage's file_size_info: the image's virtual size, or undefined when qemu-img cannot read it. For
 * an untrusted source (an absolute path, an `import` volume) a file qemu-img cannot read is an error.
 */
async function fileSizeInfo(file: string, format: string | undefined, untrusted: boolean): Promise<number | undefined> {
  try {
    return (await imageInfo(file, format === 'iso' ? 'raw' : format)).virtualSize;
  } catch {
    if (untrusted) throw fail('failed to query file information with qemu-img');
    return undefined;
  }
}

/** qemu-server's check before an import by path or a live import: an empty or unreadable source fails. */
async function requireSourceSize(file: string, format: string | undefined, untrusted: boolean): Promise<void> {
  if (!(await fileSizeInfo(file, format, untrusted))) throw fail(`could not get file size of ${file}`);
}

function sortKeys(map: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.keys(map)
      .sort()
      .map((k) => [k, map[k]!]),
  );
}

/** A drive or NIC value as qemu-server writes it (print_drive, print_net), by the flavour's schema. */
export function printDevice(cluster: Cluster, key: string, value: string): string {
  const properties = loadSubset(cluster.flavour).endpoints['/nodes/{node}/qemu/{vmid}/config']!.PUT!.parameters!
    .properties!;
  const format = schemaFor(properties, key)?.format;
  return format && typeof format === 'object' ? normalisePropertyString(format, value) : value;
}

/** `virtio,bridge=vmbr0` → `virtio=BC:24:11:…,bridge=vmbr0` (MAC generated unless given). */
export function normaliseNic(cluster: Cluster, value: string): string {
  const nic = parseNic(value);
  return formatPropertyString({ [nic.model]: nic.macaddr || cluster.newMac(), ...nic.options });
}

export interface ConfigWrite {
  set: Record<string, string>;
  delete: string[];
  revert: string[];
  /** `force`: deleted disks are removed, not kept as unusedN. */
  force: boolean;
}

/** Splits validated parameters into settings, deletions and reverts; rejects PVE's conflicting combinations. */
export function parseConfigWrite(params: Record<string, string>, controlKeys: string[]): ConfigWrite {
  const list = (v?: string) => (v ? v.split(/[,;\s]+/).filter(Boolean) : []);
  const set: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) if (!controlKeys.includes(k)) set[k] = v;
  const write = { set, delete: list(params.delete), revert: list(params.revert), force: params.force === '1' };
  for (const key of write.delete) {
    if (key in set) throw paramError({ delete: `you can't use '-${key}' and '-delete ${key}' at the same time` });
    if (write.revert.includes(key))
      throw paramError({ revert: `you can't use '-revert ${key}' and '-delete ${key}' at the same time` });
  }
  for (const key of write.revert)
    if (key in set) throw paramError({ revert: `you can't use '-${key}' and '-revert ${key}' at the same time` });
  if (Object.keys(set).length === 0 && write.delete.length === 0 && write.revert.length === 0)
    throw fail('no options specified');
  return write;
}

/** Applies a config write to a VM, as `PUT`/`POST …/config` do once the locks are held. */
export async function applyConfigWrite(ctx: WriteContext, write: ConfigWrite): Promise<void> {
  const { vm } = ctx;
  const running = vm.status === 'running';
  for (const key of write.revert) {
    delete vm.pending[key];
    vm.pendingDelete.delete(key);
  }
  for (const key of write.delete) {
    if (running && !HOTPLUG(key)) {
      vm.pendingDelete.set(key, write.force);
      delete vm.pending[key];
      continue;
    }
    deleteKey(ctx, key, write.force);
  }
  for (const [key, raw] of Object.entries(write.set)) {
    let value = raw;
    // qemu-server parses and prints every drive and NIC it stores (booleans become 1/0, keys sorted).
    if (DISK_KEY.test(key))
      value = printDevice(ctx.cluster, key, await prepareDisk(ctx, key, printDevice(ctx.cluster, key, raw)));
    else if (NET_KEY.test(key)) value = printDevice(ctx.cluster, key, normaliseNic(ctx.cluster, raw));
    else if (UNUSED_KEY.test(key))
      throw paramError({ [key]: 'unable to set unused disks directly, detach a disk instead' });
    if (running && !HOTPLUG(key)) {
      vm.pending[key] = value;
      vm.pendingDelete.delete(key);
      continue;
    }
    setKey(ctx, key, value);
  }
}

/** Sets a config value; a disk it replaces is kept as unusedN (PVE never deletes a disk it swaps out). */
function setKey(ctx: WriteContext, key: string, value: string): void {
  const previous = ctx.vm.config[key];
  ctx.vm.config[key] = value;
  if (previous !== undefined && DISK_KEY.test(key) && volumeOf(previous) !== volumeOf(value))
    keepAsUnused(ctx, previous);
}

/** The VM's memory in MiB (`memory` is a property string `[current=]N,…`; PVE's default 512). */
export function memoryMiB(config: Record<string, string>): number {
  return Number(parsePropertyString(config.memory ?? '512', 'current').current ?? 512);
}

export function deleteKey(ctx: WriteContext, key: string, force: boolean): void {
  const { vm } = ctx;
  const previous = vm.config[key];
  delete vm.pending[key];
  vm.pendingDelete.delete(key);
  if (previous === undefined) return;
  delete vm.config[key];
  if (UNUSED_KEY.test(key)) removeVolume(ctx, previous);
  else if (DISK_KEY.test(key)) {
    if (force) removeVolume(ctx, previous);
    else keepAsUnused(ctx, previous);
  }
}

/** Pending changes become current (at VM start, as PVE applies them then). */
export function applyPending(ctx: WriteContext): void {
  const { vm } = ctx;
  for (const [key, force] of vm.pendingDelete) deleteKey(ctx, key, force);
  for (const [key, value] of Object.entries(vm.pending)) setKey(ctx, key, value);
  vm.pending = {};
  vm.pendingDelete.clear();
}
