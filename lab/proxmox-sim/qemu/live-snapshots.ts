import { qmpCommand } from '../../qemu/qmp';
import type { Cluster, SimVm } from '../cluster';
import type { Volume } from '../storage';
import type { TaskContext } from '../tasks';
import { deleteVolumeSnapshot, snapshotVolume } from '../volume-snapshots';
import { qemuRuntime } from './runtime';

/**
 * Disk snapshots of a VM running under real QEMU, as qemu-server's qemu_volume_snapshot takes them: a
 * qcow2 disk through QEMU itself (QMP blockdev-snapshot-internal-sync on `drive-<key>`, "internal qemu
 * snapshot"), a thin volume by the storage. The simulator pauses the guest (QMP stop/cont) while it copies a
 * thin volume's file, where LVM would snapshot it atomically; PVE instead freezes the guest's file systems
 * through the agent when one runs, which the simulator does not.
 */
function monitor(cluster: Cluster, vm: SimVm): string | undefined {
  return qemuRuntime(cluster)?.get(vm.vmid)?.qmp;
}

export async function liveVolumeSnapshot(
  cluster: Cluster,
  vm: SimVm,
  key: string,
  volume: Volume,
  snap: string,
  task: TaskContext,
): Promise<void> {
  const qmp = monitor(cluster, vm);
  if (!qmp) return snapshotVolume(volume, snap, task);
  if (volume.format === 'qcow2' && volume.storage.type !== 'lvmthin') {
    task.log('internal qemu snapshot');
    await qmpCommand(
      qmp,
      'blockdev-snapshot-internal-sync',
      { device: `drive-${key}`, name: snap },
      { timeoutMs: 60_000 },
    );
    return;
  }
  await qmpCommand(qmp, 'stop');
  try {
    await snapshotVolume(volume, snap, task);
  } finally {
    await qmpCommand(qmp, 'cont');
  }
}

export async function liveVolumeSnapshotDelete(
  cluster: Cluster,
  vm: SimVm,
  key: string | undefined,
  volume: Volume,
  snap: string,
  task: TaskContext,
): Promise<void> {
  const qmp = monitor(cluster, vm);
  if (qmp && key && volume.format === 'qcow2' && volume.storage.type !== 'lvmthin') {
    await qmpCommand(
      qmp,
      'blockdev-snapshot-delete-internal-sync',
      { device: `drive-${key}`, name: snap },
      { timeoutMs: 60_000 },
    );
    return;
  }
  return deleteVolumeSnapshot(volume, snap, task);
}
