import { hardwareChanges } from '../../../../src/domain/migration';
import { disk, nic, vm } from './fixtures';

describe('hardwareChanges (planned VM vs the VM re-read at cutover)', () => {
  const planned = vm({ disks: [disk(2000), disk(2001)], nics: [nic(4000), nic(4001)] });

  it('finds nothing when disks and MACs are the same (MAC case and disk paths do not matter)', () => {
    const fresh = vm({
      disks: [disk(2000, { fileName: '[other] moved.vmdk' }), disk(2001)],
      nics: [nic(4000, { macAddress: nic(4000).macAddress.toUpperCase() }), nic(4001)],
    });
    expect(hardwareChanges(planned, fresh)).toEqual([]);
  });

  it('lists added, removed and relabelled disks', () => {
    const fresh = vm({ disks: [disk(2000, { label: 'Hard disk 9' }), disk(2002)], nics: planned.nics });
    expect(hardwareChanges(planned, fresh)).toEqual([
      'disk key 2000 was Hard disk 1, is now Hard disk 9',
      'disk Hard disk 2 (key 2001) was removed',
      'disk Hard disk 3 (key 2002) was added',
    ]);
  });

  it('lists a disk whose size changed (the cutover verifies the planned size, after the shutdown)', () => {
    const fresh = vm({ disks: [disk(2000, { capacityBytes: 12 * 2 ** 30 }), disk(2001)], nics: planned.nics });
    expect(hardwareChanges(planned, fresh)).toEqual([
      `disk Hard disk 1 (key 2000) was ${10 * 2 ** 30} bytes, is now ${12 * 2 ** 30}`,
    ]);
  });

  it('lists changed MACs and added or removed NICs', () => {
    const fresh = vm({ disks: planned.disks, nics: [nic(4000, { macAddress: '00:50:56:00:00:01' }), nic(4002)] });
    expect(hardwareChanges(planned, fresh)).toEqual([
      `NIC Network adapter 1 MAC changed from ${nic(4000).macAddress} to 00:50:56:00:00:01`,
      `NIC Network adapter 2 (${nic(4001).macAddress}) was removed`,
      `NIC Network adapter 3 (${nic(4002).macAddress}) was added`,
    ]);
  });
});
