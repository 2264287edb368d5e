import { baseVolumeInUse } from './base-volumes';
import type { Cluster, SimVm } from './cluster';
import { configDisks, driveVolume } from './vm-drives';
import { UNUSED_KEY } from './vm-config';

/**
 * What qemu-server's destroy_vm checks and removes beyond the VM's disks: a template whose base volume
 * still backs a linked clone is not destroyed ("base volume '…' is still in use by linked cloned"), and
 * the saved states of its snapshots go with it.
 */
export async function assertBaseVolumesUnused(cluster: Cluster, vm: SimVm): Promise<void> {
  if (vm.config.template !== '1') return;
  const unused = Object.keys(vm.config)
    .filter((k) => UNUSED_KEY.test(k))
    .map((k) => ({ file: vm.config[k]! }));
  for (const { file } of [...configDisks(vm.config), ...unused]) {
    const volume = driveVolume(cluster, vm.node, file);
    if (volume && (await baseVolumeInUse(cluster.storages, volume, vm.node)))
      throw new Error(`base volume '${file}' is still in use by linked cloned`);
  }
}

/** The volumes holding the VM's snapshots' RAM (`vmstate`). */
export function snapshotStateVolumes(vm: SimVm): string[] {
  return [...vm.snapshots.values()].map((s) => s.vmstate).filter((v): v is string => v !== undefined);
}
