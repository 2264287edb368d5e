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
 * What qemu-server does with the values of a config write: disks allocated or imported on the storages
 * (real files, create_disks), NICs completed with a generated MAC, drives and NICs printed as it prints
 * them; and create_vm's first config. Where a change to an existing VM goes (pending, applied, hotplugged)
 * is config-update.ts.
 */
export const DISK_KEY = /^(ide\d+|sata\d+|scsi\d+|virtio\d+|efidisk0|tpmstate0)$/;
export const UNUSED_KEY = /^unused\d+$/;
const NET_KEY = /^net\d+$/;

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

export function freeUnusedKey(vm: SimVm): string {
  for (let n = 0; ; n++) if (!(`unused${n}` in vm.config) && !(`unused${n}` in vm.pending)) return `unused${n}`;
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

/**
 * create_vm's config: every setting written at once, drives allocated or imported (prepareDisk) and NICs
 * completed, as `POST /nodes/{node}/qemu` does once its task runs.
 */
export async function writeNewConfig(ctx: WriteContext, settings: Record<string, string>): Promise<void> {
  for (const [key, raw] of Object.entries(settings)) {
    let value = raw;
    if (DISK_KEY.test(key))
      value = printDevice(ctx.cluster, key, await prepareDisk(ctx, key, printDevice(ctx.cluster, key, raw)));
    else if (NET_KEY.test(key)) value = printDevice(ctx.cluster, key, normaliseNic(ctx.cluster, raw));
    ctx.vm.config[key] = value;
  }
}

/** The VM's memory in MiB (`memory` is a property string `[current=]N,…`; PVE's default 512). */
export function memoryMiB(config: Record<string, string>): number {
  return Number(parsePropertyString(config.memory ?? '512', 'current').current ?? 512);
}
