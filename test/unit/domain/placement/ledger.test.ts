import { datastoreBudget, migrationDatastoreNeed, PlacementLedger } from '../../../../src/domain/placement/ledger';
import { disk, GiB, local, node, shared, vm } from './fixtures';

const storages = new Map([
  ['local-lvm', local('local-lvm', { pve1: 500, pve2: 500 })],
  ['nfs-images', shared('nfs-images', ['pve1', 'pve2'], 1000)],
]);
const group = { index: 0, label: 'anti-affinity group 1 (tag app/web)', members: new Set(['vm-a', 'vm-b']), cap: 1 };

describe('PlacementLedger', () => {
  it('starts from what each node has committed, with nothing added by the wave', () => {
    const ledger = new PlacementLedger(
      [node('pve1', { committedBytes: 10 * GiB }), node('pve2', { committedBytes: 3 * GiB })],
      storages,
    );
    expect([ledger.committedOn('pve1'), ledger.committedOn('pve2')]).toEqual([10 * GiB, 3 * GiB]);
    expect([ledger.addedByWaveOn('pve1'), ledger.addedByWaveOn('pve2')]).toEqual([0, 0]);
    expect(ledger.takenOn(storages.get('local-lvm')!, 'pve1')).toBe(0);
    expect(ledger.membersOn(group, 'pve1')).toBe(0);
    expect(ledger.datastorePlaced).toBe(0);
  });

  it('books a VM on its node only: memory, group members, datastore bytes', () => {
    const ledger = new PlacementLedger([node('pve1', { committedBytes: 10 * GiB }), node('pve2')], storages);
    ledger.commit('pve1', { memoryBytes: 4 * GiB, needs: [], groups: [group], datastoreBytes: 20 * GiB });
    ledger.commit('pve1', { memoryBytes: 2 * GiB, needs: [], groups: [], datastoreBytes: 5 * GiB });
    expect(ledger.committedOn('pve1')).toBe(16 * GiB);
    expect(ledger.addedByWaveOn('pve1')).toBe(6 * GiB);
    expect([ledger.committedOn('pve2'), ledger.addedByWaveOn('pve2')]).toEqual([0, 0]);
    expect([ledger.membersOn(group, 'pve1'), ledger.membersOn(group, 'pve2')]).toEqual([1, 0]);
    expect(ledger.membersOn({ index: 1 }, 'pve1')).toBe(0);
    expect(ledger.datastorePlaced).toBe(25 * GiB);
  });

  it('counts local storage per node and shared storage once for every node', () => {
    const ledger = new PlacementLedger([node('pve1'), node('pve2')], storages);
    ledger.commit('pve1', {
      memoryBytes: 0,
      needs: [
        { storage: 'local-lvm', bytes: 30 * GiB },
        { storage: 'nfs-images', bytes: 70 * GiB },
      ],
      groups: [],
      datastoreBytes: 0,
    });
    ledger.commit('pve2', {
      memoryBytes: 0,
      needs: [{ storage: 'nfs-images', bytes: 5 * GiB }],
      groups: [],
      datastoreBytes: 0,
    });
    const localLvm = storages.get('local-lvm')!;
    const nfs = storages.get('nfs-images')!;
    expect([ledger.takenOn(localLvm, 'pve1'), ledger.takenOn(localLvm, 'pve2')]).toEqual([30 * GiB, 0]);
    expect([ledger.takenOn(nfs, 'pve1'), ledger.takenOn(nfs, 'pve2')]).toEqual([75 * GiB, 75 * GiB]);
  });
});

describe('datastoreBudget', () => {
  it('is undefined without a migration datastore', () => {
    expect(datastoreBudget(undefined, [vm('a')], 0.1)).toBeUndefined();
  });

  it('keeps the headroom (rounded up) free and needs every disk not there yet', () => {
    const vms = [
      vm('a', { disks: [disk('Hard disk 1', 20), disk('Hard disk 2', 5, 'nfs-migration')] }),
      vm('b', { disks: [disk('Hard disk 1', 40, 'vsan', { usedBytes: 8 * GiB })] }),
    ];
    const datastore = { name: 'nfs-migration', capacityBytes: 1001, freeBytes: 500 };
    expect(datastoreBudget(datastore, vms, 0.1)).toEqual({
      datastore,
      headroom: 0.1,
      headroomBytes: 101,
      roomBytes: 399,
      needBytes: 28 * GiB,
    });
    expect(migrationDatastoreNeed(vms[0]!, 'nfs-migration')).toBe(20 * GiB);
  });
});
