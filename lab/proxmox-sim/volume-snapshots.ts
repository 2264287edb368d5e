import { execFile } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { qcow2Snapshot } from './qemu-img';
import type { Volume } from './storage';
import type { TaskContext } from './tasks';

/**
 * Snapshots of a stopped VM's volumes as pve-storage takes them: a qcow2 file keeps an internal snapshot
 * (`qemu-img snapshot -c/-a/-d`, Plugin.pm); an LVM-thin volume gets a thin snapshot LV
 * `snap_<volume>_<snapshot>` (LvmThinPlugin.pm), which the simulator keeps as a copy of the volume's
 * file beside it (sparse, reflinked where the file system can). Rollback brings the disk's contents
 * back; the task log has lvcreate/lvremove's lines as PVE's does.
 */
const run = promisify(execFile);

/** The file standing for a thin volume's snapshot LV. */
export function thinSnapshotFile(volume: Volume, snap: string): string {
  return path.join(path.dirname(volume.file), `snap_${volume.volname}_${snap}.raw`);
}

/** A copy of a volume file that keeps its holes (and shares blocks where the file system can reflink). */
export async function copyVolumeFile(source: string, target: string): Promise<void> {
  await run('cp', ['--sparse=always', '--reflink=auto', source, target]);
}

export async function snapshotVolume(volume: Volume, snap: string, task?: TaskContext): Promise<void> {
  if (volume.storage.type !== 'lvmthin') return qcow2Snapshot(volume.file, 'create', snap);
  const file = thinSnapshotFile(volume, snap);
  if (existsSync(file))
    throw new Error(
      `lvcreate snapshot 'pve/snap_${volume.volname}_${snap}' error:   Logical Volume "snap_${volume.volname}_${snap}" already exists in volume group "pve"`,
    );
  await copyVolumeFile(volume.file, file);
  task?.log(`  Logical volume "snap_${volume.volname}_${snap}" created.`);
}

export async function rollbackVolume(volume: Volume, snap: string, task?: TaskContext): Promise<void> {
  if (volume.storage.type !== 'lvmthin') return qcow2Snapshot(volume.file, 'apply', snap);
  const file = thinSnapshotFile(volume, snap);
  if (!existsSync(file))
    throw new Error(
      `lvm rollback 'pve/snap_${volume.volname}_${snap}' error:   Failed to find logical volume "pve/snap_${volume.volname}_${snap}"`,
    );
  // lvremove of the volume, then lvcreate of a new one from the snapshot.
  rmSync(volume.file, { force: true });
  task?.log(`  Logical volume "${volume.volname}" successfully removed.`);
  await copyVolumeFile(file, volume.file);
  task?.log(`  Logical volume "${volume.volname}" created.`);
}

export async function deleteVolumeSnapshot(volume: Volume, snap: string, task?: TaskContext): Promise<void> {
  if (volume.storage.type !== 'lvmthin') return qcow2Snapshot(volume.file, 'delete', snap);
  const file = thinSnapshotFile(volume, snap);
  if (!existsSync(file))
    throw new Error(
      `lvremove snapshot 'pve/snap_${volume.volname}_${snap}' error:   Failed to find logical volume "pve/snap_${volume.volname}_${snap}"`,
    );
  rmSync(file, { force: true });
  task?.log(`  Logical volume "snap_${volume.volname}_${snap}" successfully removed.`);
}
