import { chmodSync, existsSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import path from 'node:path';
import { createOverlay, imageInfo, type ImageFormat } from './qemu-img';
import type { Storages, Volume } from './storage';
import type { TaskContext } from './tasks';
import { copyVolumeFile, thinSnapshotFile } from './volume-snapshots';

/**
 * A template's base volumes and the linked clones made from them, as pve-storage keeps them:
 * create_base renames `vm-<vmid>-disk-<n>` to `base-<vmid>-disk-<n>` and makes it read-only;
 * clone_image makes a linked clone — on a directory storage a qcow2 overlay backed by the base file
 * (`../<vmid>/<base>`, volume `<vmid>/<base>/<newid>/vm-<newid>-disk-<n>.qcow2`), on an LVM-thin pool a
 * thin snapshot of the base volume or of a volume snapshot (here a copy of its file) named like any
 * disk. A directory storage's base volume cannot be removed while a linked clone uses it.
 */

/** pve-storage's create_base: the volume becomes the template's base volume; returns its new volume ID. */
export function createBase(storages: Storages, volume: Volume, node: string, task?: TaskContext): Volume {
  if (volume.isBase) throw new Error('create_base not possible with base image');
  const id = volume.storage.id;
  const name = path.basename(volume.file).replace(/^vm-/, 'base-');
  if (volume.storage.type === 'lvmthin') {
    const snapshot = readdirSync(path.dirname(volume.file)).find((f) => f.startsWith(`snap_${volume.volname}_`));
    if (snapshot) throw new Error(`unable to create base volume - found snaphost '${snapshot.replace(/\.raw$/, '')}'`);
  }
  const volid =
    volume.storage.type === 'lvmthin'
      ? `${id}:${name.replace(/\.raw$/, '')}`
      : `${id}:${volume.base ? `${volume.base.vmid}/${volume.base.name}/` : ''}${volume.vmid}/${name}`;
  const target = storages.resolve(volid, node);
  if (existsSync(target.file)) throw new Error(`file '${target.file}' already exists`);
  renameSync(volume.file, target.file);
  chmodSync(target.file, 0o444); // "nobody should write anything"
  if (volume.storage.type === 'lvmthin') {
    task?.log(`  Renamed "${volume.volname}" to "${target.volname}" in volume group "pve"`);
    task?.log(`  Logical volume pve/${target.volname} changed.`);
  }
  return target;
}

/** pve-storage's clone_image: a linked clone of a base volume (or, on LVM-thin, of a volume snapshot) for `newVmid`. */
export async function cloneImage(
  storages: Storages,
  volume: Volume,
  node: string,
  newVmid: number,
  snapname?: string,
  task?: TaskContext,
): Promise<Volume> {
  const storage = volume.storage;
  if (storage.type === 'lvmthin') {
    if (!snapname && !volume.isBase) throw new Error('clone_image only works on base images');
    const target = storages.allocateName(storage, node, newVmid, 'raw');
    await copyVolumeFile(snapname ? thinSnapshotFile(volume, snapname) : volume.file, target.file);
    task?.log(`  Logical volume "${target.volname}" created.`);
    return target;
  }
  if (snapname) throw new Error('this storage type does not support clone_image on snapshot');
  if (!volume.isBase) throw new Error('clone_image only works on base images');
  const baseName = path.basename(volume.file);
  const plain = storages.allocateName(storage, node, newVmid, 'qcow2');
  const target = storages.resolve(`${storage.id}:${volume.vmid}/${baseName}/${plain.volname}`, node);
  mkdirSync(path.dirname(target.file), { recursive: true });
  await createOverlay(target.file, `../${volume.vmid}/${baseName}`, volume.format as ImageFormat);
  return target;
}

/**
 * pve-storage's volume_is_base_and_used: whether a base volume on a directory storage backs a linked
 * clone (an LVM-thin base volume never counts: thin snapshots outlive their origin).
 */
export async function baseVolumeInUse(storages: Storages, volume: Volume, node: string): Promise<boolean> {
  if (!volume.isBase || volume.storage.type === 'lvmthin') return false;
  const images = path.join(storages.folder(volume.storage, node), 'images');
  const backing = `../${volume.vmid}/${path.basename(volume.file)}`;
  for (const sub of existsSync(images) ? readdirSync(images) : []) {
    for (const f of readdirSync(path.join(images, sub))) {
      if (!f.endsWith('.qcow2')) continue;
      if ((await imageInfo(path.join(images, sub, f), undefined, true)).backingFile === backing) return true;
    }
  }
  return false;
}
