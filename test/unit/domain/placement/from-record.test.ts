import { placementVm } from '../../../../src/domain/placement';
import { disk, vm } from '../migration/fixtures';

describe('placementVm', () => {
  it('reads what placement needs from a discovered VM', () => {
    const record = vm({
      folder: '/DC0/vm/apps',
      memoryMb: 8192,
      numCpu: 4,
      disks: [
        disk(2000),
        disk(2001, { datastore: undefined, fileName: '[ssd-01] web01/web01_1.vmdk', capacityBytes: 0 }),
      ],
    });
    expect(placementVm(record, ['app/web'])).toEqual({
      moid: 'vm-42',
      name: 'web01',
      folder: '/DC0/vm/apps',
      tags: ['app/web'],
      memoryBytes: 8 * 1024 ** 3,
      cpus: 4,
      disks: [
        { label: 'Hard disk 1', datastore: 'nfs-migration', capacityBytes: 10 * 2 ** 30 },
        { label: 'Hard disk 2', datastore: 'ssd-01', capacityBytes: 0 },
      ],
    });
  });

  it('has no tags unless given, and no datastore for an unreadable file name', () => {
    const result = placementVm(vm({ disks: [disk(2000, { datastore: undefined, fileName: 'nonsense' })] }));
    expect(result.tags).toEqual([]);
    expect(result.disks[0]!.datastore).toBe('');
  });
});
