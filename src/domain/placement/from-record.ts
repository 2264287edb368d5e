import type { VmRecord } from '../inventory';
import { parseDatastorePath } from '../migration/disks';
import type { PlacementVm } from './types';

const MIB = 1024 ** 2;

/**
 * A discovered VM as placement sees it. Tags come from the tagging API, not vim25, so the caller
 * passes them (`category/name`). A disk's datastore is its backing's, else the one in its file name.
 */
export function placementVm(vm: VmRecord, tags: readonly string[] = []): PlacementVm {
  return {
    moid: vm.moid,
    name: vm.name,
    folder: vm.folder,
    tags: [...tags],
    memoryBytes: vm.memoryMb * MIB,
    cpus: vm.numCpu,
    disks: vm.disks.map((disk) => ({
      label: disk.label,
      datastore: disk.datastore?.name ?? parseDatastorePath(disk.fileName)?.datastore ?? '',
      capacityBytes: disk.capacityBytes,
    })),
  };
}
