import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { formatPropertyString, parsePropertyString } from '../../src/proxmox/property-string';
import { formatDiskSize } from '../../src/proxmox/disk-size';
import { cloneImage } from './base-volumes';
import type { Cluster, SimVm } from './cluster';
import { simulateCopy } from './copy-log';
import { qmpCommand } from '../qemu/qmp';
import { qemuRuntime } from './qemu/runtime';
import { convertImage, createImage, imageInfo, type ImageFormat } from './qemu-img';
import type { StorageSpec, Volume } from './storage';
import type { TaskContext } from './tasks';
import { printDevice } from './vm-config';
import { thinSnapshotFile } from './volume-snapshots';

/**
 * qemu-server's clone_disk for one drive of a clone: a linked clone through the storage (clone_image), or
 * a full copy — a new volume on the target storage in the resolved format (a cloud-init drive gets a new,
 * empty one: its content is made at start), the data copied with qemu-img convert as qemu_img_convert
 * does (its `transferred …` lines in the log), from the snapshot when cloning one. Returns the drive as
 * the clone's config holds it (the new volume, its size, no `format`). A running VM under real QEMU is
 * copied paused (QMP stop/cont) where PVE would mirror its disks live.
 */
export interface CloneDiskSource {
  vm: SimVm;
  key: string;
  value: string;
  volume: Volume;
  snapname?: string;
  /** The source VM runs (a full clone of it would use drive-mirror on PVE). */
  running: boolean;
}

export interface CloneDiskTarget {
  vmid: number;
  node: string;
  storage?: StorageSpec;
  format?: ImageFormat;
}

const TPMSTATE_BYTES = 4 * 1024 * 1024;
const CLOUDINIT_BYTES = 4 * 1024 * 1024;

/** resolve_dst_disk_format: the requested format, else the source's, if the storage takes it; else its default. */
export function targetFormat(
  cluster: Cluster,
  storage: StorageSpec,
  source: Volume,
  requested?: ImageFormat,
): ImageFormat {
  const wanted = requested ?? (source.format as ImageFormat);
  return cluster.storages.supportsFormat(storage, wanted)
    ? wanted
    : storage.type === 'lvmthin'
      ? 'raw'
      : cluster.storages.defaultFormat();
}

async function copyData(
  cluster: Cluster,
  source: CloneDiskSource,
  target: Volume,
  format: ImageFormat,
  task: TaskContext,
): Promise<void> {
  const { volume, snapname } = source;
  const bytes = (await imageInfo(volume.file, undefined, true)).virtualSize;
  await simulateCopy(task, cluster.settings.importTaskMs, bytes);
  if (snapname && volume.storage.type === 'lvmthin')
    return convertImage(thinSnapshotFile(volume, snapname), target.file, format, 'raw');
  const qmp = source.running && !snapname ? qemuRuntime(cluster)?.get(source.vm.vmid)?.qmp : undefined;
  if (!qmp)
    return convertImage(volume.file, target.file, format, volume.format, {
      snapshot: snapname,
      forceShare: source.running,
    });
  await qmpCommand(qmp, 'stop');
  try {
    await convertImage(volume.file, target.file, format, volume.format, { forceShare: true });
  } finally {
    await qmpCommand(qmp, 'cont');
  }
}

/**
 * `copy`, when given, replaces the qemu-img copy of a full clone's data: a live disk move mirrors the
 * running drive into the allocated volume instead (qemu/drive-mirror.ts).
 */
export async function cloneDisk(
  cluster: Cluster,
  source: CloneDiskSource,
  target: CloneDiskTarget,
  full: boolean,
  task: TaskContext,
  created: Volume[],
  copy?: (target: Volume, format: ImageFormat) => Promise<void>,
): Promise<string> {
  const drive = parsePropertyString(source.value, 'file');
  task.log(`create ${full ? 'full' : 'linked'} clone of drive ${source.key} (${drive.file})`);
  let volume: Volume;
  if (!full) {
    volume = await cloneImage(cluster.storages, source.volume, source.vm.node, target.vmid, source.snapname, task);
    created.push(volume);
  } else {
    const storage = target.storage ?? source.volume.storage;
    const format = targetFormat(cluster, storage, source.volume, target.format);
    if (target.format && target.format !== format)
      task.log(
        `format '${target.format}' is not supported by the target storage '${storage.id}' - using '${format}' instead`,
      );
    const cloudinit = /^vm-\d+-cloudinit/.test(path.basename(source.volume.file));
    if (cloudinit) {
      const volid =
        storage.type === 'lvmthin'
          ? `${storage.id}:vm-${target.vmid}-cloudinit`
          : `${storage.id}:${target.vmid}/vm-${target.vmid}-cloudinit.${format}`;
      volume = cluster.storages.resolve(volid, target.node);
      if (existsSync(volume.file)) throw new Error(`unable to create volume '${volid}' - volume already exists`);
      mkdirSync(path.dirname(volume.file), { recursive: true });
    } else volume = cluster.storages.allocateName(storage, target.node, target.vmid, format);
    const bytes = cloudinit
      ? CLOUDINIT_BYTES
      : source.key === 'tpmstate0'
        ? TPMSTATE_BYTES
        : (await imageInfo(source.volume.file, undefined, true)).virtualSize;
    await createImage(volume.file, format, bytes);
    created.push(volume);
    task.log(`allocated target volume '${volume.volid}'`);
    if (!cloudinit) await (copy ? copy(volume, format) : copyData(cluster, source, volume, format, task));
  }
  // forceShare: after a live move the running QEMU holds the new volume open.
  const size = (await imageInfo(volume.file, undefined, true)).virtualSize;
  const { format: _format, ...rest } = drive;
  return printDevice(
    cluster,
    source.key,
    formatPropertyString({ ...rest, file: volume.volid, size: formatDiskSize(size) }, 'file'),
  );
}
