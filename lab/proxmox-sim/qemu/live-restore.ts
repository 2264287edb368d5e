import { rmSync } from 'node:fs';
import path from 'node:path';
import type { Cluster, SimVm } from '../cluster';
import { createOverlay, type ImageFormat } from '../qemu-img';
import type { TaskContext } from '../tasks';
import { mirrorDrive } from './drive-mirror';
import { qemuRuntime } from './runtime';

/** One disk of a live import: its new (empty) volume and the image it streams from. */
export interface RestoreDrive {
  key: string;
  volid: string;
  target: { path: string; format: ImageFormat };
  source: { path: string; format: ImageFormat };
}

/**
 * A live import under real QEMU, for a VM whose imported boot disk holds a bootable image.
 *
 * qemu-server starts the VM at once on its new volumes, each behind Proxmox's `alloc-track` filter
 * (reads of what is not copied yet go to the source), and streams the sources in with `block-stream`
 * jobs `restore-drive-<slot>`; the task ends when they have. QEMU 7.2 has no alloc-track (a pve-qemu
 * patch), so the simulator gets the same behaviour another way: the guest starts on a qcow2 overlay per
 * disk over its source (in the runtime's folder; the source is only read), and each overlay is mirrored
 * into its new volume (drive-mirror, sync full), QEMU switching the drive to the volume at the end. As on
 * PVE, the guest runs from the start, what it writes reaches the new volume, and a failed copy stops it
 * and loses those writes. The task log shows the stream jobs' lines (drive-mirror.ts `asRestoreStream`).
 *
 * Resolves undefined when no bootable image comes in (the VM is then only marked running, as before).
 */
export async function startLiveRestore(
  cluster: Cluster,
  vm: SimVm,
  drives: RestoreDrive[],
  task: TaskContext,
  onExit: () => void,
): Promise<{ stream: () => Promise<void> } | undefined> {
  const runtime = qemuRuntime(cluster);
  if (!runtime) return undefined;
  const overlays = new Map(
    drives.map((d) => [
      d.volid,
      { path: path.join(runtime.dir, `${vm.vmid}-live-restore-${d.key}.qcow2`), format: 'qcow2' },
    ]),
  );
  const removeOverlays = () => {
    for (const o of overlays.values()) rmSync(o.path, { force: true });
  };
  try {
    for (const d of drives) await createOverlay(overlays.get(d.volid)!.path, d.source.path, d.source.format);
    if (!(await runtime.bootDisk(cluster, vm, overlays))) {
      removeOverlays();
      return undefined;
    }
    task.log('starting VM for live import');
    await runtime.start(cluster, vm, task, onExit, overlays);
  } catch (err) {
    removeOverlays();
    throw err;
  }
  return {
    stream: async () => {
      try {
        await Promise.all(
          drives.map((d) =>
            mirrorDrive({
              cluster,
              vm,
              key: d.key,
              target: d.target,
              task,
              interruptedMessage: 'interrupted by signal',
              asRestoreStream: true,
            }),
          ),
        );
      } finally {
        // QEMU now reads the new volumes; after a failure the caller stops it (an open file outlives its name).
        removeOverlays();
      }
    },
  };
}
