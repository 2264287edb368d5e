import { formatPropertyString, parsePropertyString } from '../../src/proxmox/property-string';
import { formatDiskSize } from '../../src/proxmox/disk-size';
import { paramError } from './api-error';
import { configDigest, type Cluster, type SimVm } from './cluster';
import type { LiveDevices } from './live-devices';
import { imageInfo, resizeImage, type ImageFormat } from './qemu-img';
import type { SimRequest } from './routes/types';
import { startTask } from './routes/types';
import type { TaskContext } from './tasks';
import { printDevice } from './vm-config';
import { isCdromDrive } from './vm-drives';

/**
 * resize_vm (PVE/API2/Qemu.pm, `PUT …/resize`): a `resize` task that, under the config lock, checks the
 * disk ("disk 'x' does not exist", "you can't resize a cdrom"), takes the volume's size, adds `+N` to it
 * or takes N as the new size, refuses to shrink ("shrinking disks is not supported"), does nothing for
 * the same size, and grows the volume: on a running VM QEMU grows it (QMP block_resize, the size padded
 * to KiB; a file-based storage leaves it to QEMU, LVM-thin extends the LV first), on a stopped one the
 * storage does (qemu-img resize, lvextend). The drive's `size=` then says the new size.
 */
const UNITS: Record<string, number> = { K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };

export function resizeDisk(
  req: SimRequest,
  vm: SimVm,
  devicesOf: (cluster: Cluster, vm: SimVm) => LiveDevices,
): string {
  const { cluster } = req;
  const disk = req.params.disk!;
  const sizeText = req.params.size!;
  const skiplock = req.params.skiplock === '1';
  if (skiplock && req.user !== 'root@pam') throw paramError({ skiplock: 'Only root may use this option.' });
  return startTask(req, { node: vm.node, type: 'resize', id: String(vm.vmid) }, (task) =>
    vm.flock.run(cluster.settings.flockTimeoutMs, async () => {
      if (req.params.digest !== undefined && req.params.digest !== configDigest(vm))
        throw new Error('checksum mismatch (file change by other user?)');
      if (!skiplock) cluster.checkLock(vm);
      const value = vm.config[disk];
      if (!value) throw new Error(`disk '${disk}' does not exist`);
      const drive = parsePropertyString(value, 'file');
      const volid = drive.file;
      if (!volid) throw new Error(`disk '${disk}' has no associated volume`);
      if (isCdromDrive(value)) throw new Error("you can't resize a cdrom");
      const volume = cluster.storages.resolve(volid, vm.node);
      const size = await imageInfo(volume.file, volume.format === 'iso' ? 'raw' : volume.format).then(
        (info) => info.virtualSize,
        () => undefined,
      );
      if (size === undefined) throw new Error(`Could not determine current size of volume '${volid}'`);
      const m = /^(\+)?(\d+(?:\.\d+)?)([KMGT])?$/.exec(sizeText);
      if (!m) throw new Error('internal error');
      let wanted = Number(m[2]) * (m[3] ? UNITS[m[3]]! : 1);
      if (m[1]) wanted += size;
      wanted = Math.floor(wanted);
      if (wanted < size) throw new Error('shrinking disks is not supported');
      if (wanted === size) return;
      await task.sleep(cluster.settings.taskMs);
      await growVolume(
        { cluster, vm, task, disk, file: volume.file, format: volume.format as ImageFormat },
        size,
        wanted,
        devicesOf,
      );
      const { size: _old, ...rest } = drive;
      vm.config[disk] = printDevice(
        cluster,
        disk,
        formatPropertyString({ ...rest, size: formatDiskSize(wanted) }, 'file'),
      );
    }),
  ).upid;
}

interface GrowTarget {
  cluster: Cluster;
  vm: SimVm;
  task: TaskContext;
  disk: string;
  file: string;
  format: ImageFormat;
}

/** PVE::Storage::volume_resize, then (running) block_resize: QEMU grows a running real guest's file. */
async function growVolume(
  target: GrowTarget,
  from: number,
  to: number,
  devicesOf: (cluster: Cluster, vm: SimVm) => LiveDevices,
): Promise<void> {
  const { cluster, vm, task, disk } = target;
  const devices = vm.status === 'running' ? devicesOf(cluster, vm) : undefined;
  const volume = cluster.storages.resolve(parsePropertyString(vm.config[disk]!, 'file').file!, vm.node);
  if (volume.storage.type === 'lvmthin') {
    const lv = `pve/${volume.volname}`;
    task.log(`  Size of logical volume ${lv} changed from ${lvmSize(from)} to ${lvmSize(to)}.`);
    task.log(`  Logical volume ${lv} successfully resized.`);
  } else if (!devices) task.log('Image resized.'); // qemu-img resize's output; a running VM's file is QEMU's to grow
  if (devices?.real) await devices.blockResize(disk, to);
  else await resizeImage(target.file, target.format, to);
}

/** LVM's display of an LV size with its 4 MiB extents: `4.00 GiB (1024 extents)`. */
function lvmSize(bytes: number): string {
  const extents = Math.ceil(bytes / (4 * 1024 ** 2));
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = (extents * 4 * 1024 ** 2) / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(2)} ${units[unit]} (${extents} extents)`;
}
