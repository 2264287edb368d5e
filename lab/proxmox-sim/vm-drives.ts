import { parsePropertyString } from '../../src/proxmox/property-string';
import type { Cluster, SimVm } from './cluster';
import type { Volume } from './storage';
import { DISK_KEY, UNUSED_KEY, volumeOf } from './vm-config';
import { volumeHasFeature, type VolumeFeature } from './volume-features';

/**
 * A config's drives as qemu-server's foreach_volume walks them, and the checks built on them: the volume
 * behind each drive, has_feature over all of them, and add_unused_volume with write_vm_config's rule
 * (an `unusedN` naming a volume a drive uses again is dropped).
 */
export interface ConfigDrive {
  key: string;
  value: string;
  file: string;
}

/** drive_is_cdrom: a CD-ROM (also the cloud-init drive) or an empty drive. */
export function isCdromDrive(value: string): boolean {
  const drive = parsePropertyString(value, 'file');
  return drive.media === 'cdrom' || drive.file === 'cdrom' || drive.file === 'none';
}

/** The disks of a config (not CD-ROMs), in qemu-server's key order. */
export function configDisks(config: Record<string, string>): ConfigDrive[] {
  return Object.keys(config)
    .filter((key) => DISK_KEY.test(key) && !isCdromDrive(config[key]!))
    .sort()
    .map((key) => ({ key, value: config[key]!, file: volumeOf(config[key]!) }));
}

/** The storage volume of a drive, or undefined for an absolute path or a name no storage knows. */
export function driveVolume(cluster: Cluster, node: string, file: string): Volume | undefined {
  if (file.startsWith('/')) return undefined;
  try {
    return cluster.storages.resolve(file, node);
  } catch {
    return undefined;
  }
}

/** PVE::QemuConfig->has_feature: every disk's volume has the feature (a path-attached disk has none). */
export function configHasFeature(
  cluster: Cluster,
  node: string,
  config: Record<string, string>,
  feature: VolumeFeature,
  snapname?: string,
): boolean {
  return configDisks(config).every((d) => {
    const volume = driveVolume(cluster, node, d.file);
    return volume !== undefined && volumeHasFeature(feature, volume, snapname);
  });
}

/** add_unused_volume as write_vm_config leaves it: not twice, and not while a current or pending drive uses it. */
export function addUnusedVolume(vm: SimVm, volid: string): void {
  const used = [...Object.entries(vm.config), ...Object.entries(vm.pending)].some(
    ([k, v]) => (DISK_KEY.test(k) && volumeOf(v) === volid) || (UNUSED_KEY.test(k) && v === volid),
  );
  if (used) return;
  for (let n = 0; ; n++) {
    if (!(`unused${n}` in vm.config)) {
      vm.config[`unused${n}`] = volid;
      return;
    }
  }
}
