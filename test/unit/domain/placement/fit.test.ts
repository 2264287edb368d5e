import {
  fitGroup,
  fitOnDatastore,
  fitOnNode,
  fitWaveOnDatastore,
  storageKindProblems,
  storageNeeds,
  type PlacementRequest,
} from '../../../../src/domain/placement/fit';
import { datastoreBudget, PlacementLedger } from '../../../../src/domain/placement/ledger';
import type { PlacedDisk } from '../../../../src/domain/placement';
import { disk, GiB, local, node, shared, vm } from './fixtures';

const placedDisk = (label: string, storage: string, sizeGiB: number, storageBy = 'targetStorage'): PlacedDisk => ({
  label,
  datastore: 'vsan',
  storage,
  capacityBytes: sizeGiB * GiB,
  storageBy,
});
const storages = new Map([
  ['local-lvm', local('local-lvm', { pve1: 100, pve2: 100 })],
  ['nfs-images', shared('nfs-images', ['pve1'], 50)],
  ['iso', local('iso', { pve1: 100 }, ['iso'])],
]);
const web = { index: 0, label: 'anti-affinity group 1 (tag app/web)', members: new Set(['vm-a', 'vm-b']), cap: 1 };

function request(overrides: Partial<PlacementRequest> = {}): PlacementRequest {
  const disks = overrides.disks ?? [placedDisk('Hard disk 1', 'local-lvm', 20)];
  return { vm: vm('a'), disks, needs: storageNeeds(disks), groups: [], datastoreBytes: 0, ...overrides };
}

describe('storageNeeds', () => {
  it('adds up the disks per storage, in storage-name order, naming each mapping once', () => {
    const needs = storageNeeds([
      placedDisk('Hard disk 1', 'nfs-images', 10, 'storageMap 1 (datastore ssd-*)'),
      placedDisk('Hard disk 2', 'local-lvm', 20),
      placedDisk('Hard disk 3', 'nfs-images', 5, 'storageMap 1 (datastore ssd-*)'),
    ]);
    expect(needs).toEqual([
      { storage: 'local-lvm', bytes: 20 * GiB, labels: ['Hard disk 2'], by: ['targetStorage'] },
      {
        storage: 'nfs-images',
        bytes: 15 * GiB,
        labels: ['Hard disk 1', 'Hard disk 3'],
        by: ['storageMap 1 (datastore ssd-*)'],
      },
    ]);
  });
});

describe('storageKindProblems', () => {
  it('refuses a storage the cluster does not have and one that holds no disks, whatever the node', () => {
    const problems = storageKindProblems(
      request({ disks: [placedDisk('Hard disk 1', 'gone', 1), placedDisk('Hard disk 2', 'iso', 1)] }),
      storages,
    );
    expect(problems.map((p) => [p.code, p.resource])).toEqual([
      ['placement-storage-unknown', 'gone'],
      ['placement-storage-content', 'iso'],
    ]);
    expect(storageKindProblems(request(), storages)).toEqual([]);
  });
});

describe('fitOnNode', () => {
  it('fits: nothing to say', () => {
    const ledger = new PlacementLedger([node('pve1')], storages);
    expect(fitOnNode(request(), node('pve1'), ledger, 1, storages)).toEqual([]);
  });

  it('says every reason, in order: CPUs, memory, anti-affinity, storage room', () => {
    const pve1 = node('pve1', { cpus: 1, memoryBytes: 8 * GiB, committedBytes: 2 * GiB });
    const ledger = new PlacementLedger([pve1], storages);
    ledger.commit('pve1', {
      memoryBytes: 4 * GiB,
      needs: [{ storage: 'local-lvm', bytes: 90 * GiB }],
      groups: [web],
      datastoreBytes: 0,
    });
    const refusals = fitOnNode(request({ groups: [web] }), pve1, ledger, 1, storages);
    expect(refusals.map((r) => [r.code, r.need, r.room])).toEqual([
      ['placement-cpu', 2, 1],
      ['placement-memory', 4 * GiB, 2 * GiB],
      ['placement-anti-affinity', 2, 1],
      ['placement-storage-room', 20 * GiB, 10 * GiB],
    ]);
    expect(refusals[1]!.reason).toBe(
      'memory on pve1: needs 4 GiB, 2 GiB free (limit 8 GiB = 1.0 × 8 GiB; 6 GiB committed, 4 GiB of it by this wave)',
    );
    expect(refusals[3]!.reason).toBe(
      'local-lvm on pve1: needs 20 GiB, 10 GiB free after 90 GiB placed by this wave (Hard disk 1)',
    );
  });

  it('refuses a node that does not reach a storage the disks need', () => {
    const ledger = new PlacementLedger([node('pve2')], storages);
    const refusals = fitOnNode(
      request({ disks: [placedDisk('Hard disk 1', 'nfs-images', 1)] }),
      node('pve2'),
      ledger,
      1,
      storages,
    );
    expect(refusals.map((r) => r.reason)).toEqual([
      'nfs-images (for Hard disk 1) is not reachable from pve2: it is on pve1',
    ]);
  });
});

describe('fitGroup', () => {
  it('takes members up to the cap and refuses the one beyond, with the count', () => {
    const ledger = new PlacementLedger([node('pve1')], storages);
    const two = { ...web, cap: 2 };
    expect(fitGroup('b', two, 'pve1', ledger)).toBeUndefined();
    ledger.commit('pve1', { memoryBytes: 0, needs: [], groups: [two], datastoreBytes: 0 });
    expect(fitGroup('b', two, 'pve1', ledger)).toBeUndefined();
    ledger.commit('pve1', { memoryBytes: 0, needs: [], groups: [two], datastoreBytes: 0 });
    expect(fitGroup('b', two, 'pve1', ledger)).toEqual({
      code: 'placement-anti-affinity',
      subject: 'b',
      resource: 'anti-affinity group 1 (tag app/web) on pve1',
      need: 3,
      room: 2,
      reason: 'anti-affinity group 1 (tag app/web): pve1 already holds 2 of its VMs (at most 2 per node)',
    });
  });
});

describe('the migration datastore', () => {
  const datastore = { name: 'nfs-migration', capacityBytes: 100 * GiB, freeBytes: 50 * GiB };
  const budget = datastoreBudget(datastore, [vm('a', { disks: [disk('Hard disk 1', 45)] })], 0.1)!;

  it('not partial: refuses the wave whole when every disk does not fit in free − headroom', () => {
    expect(fitWaveOnDatastore(undefined, false)).toEqual([]);
    expect(fitWaveOnDatastore(budget, true)).toEqual([]);
    expect(fitWaveOnDatastore(budget, false)).toEqual([
      {
        code: 'placement-migration-datastore',
        subject: 'nfs-migration',
        resource: 'migration datastore nfs-migration',
        need: 45 * GiB,
        room: 40 * GiB,
        reason:
          'migration datastore nfs-migration: needs 45 GiB, 40 GiB free for every disk of the wave (50 GiB free, 10% (10 GiB) kept as headroom)',
      },
    ]);
    expect(fitWaveOnDatastore({ ...budget, needBytes: 40 * GiB }, false)).toEqual([]);
  });

  it('partial: refuses the VM whose bytes do not fit after the VMs placed before it', () => {
    const ledger = new PlacementLedger([node('pve1')], storages, budget);
    const vmNeeding = (gib: number) => ({ vm: vm('b'), datastoreBytes: gib * GiB });
    expect(fitOnDatastore(vmNeeding(40), ledger, true)).toBeUndefined();
    expect(fitOnDatastore(vmNeeding(41), ledger, false)).toBeUndefined();
    ledger.commit('pve1', { memoryBytes: 0, needs: [], groups: [], datastoreBytes: 30 * GiB });
    expect(fitOnDatastore(vmNeeding(10), ledger, true)).toBeUndefined();
    expect(fitOnDatastore(vmNeeding(11), ledger, true)).toEqual({
      code: 'placement-migration-datastore',
      subject: 'b',
      resource: 'migration datastore nfs-migration',
      need: 11 * GiB,
      room: 10 * GiB,
      reason:
        "migration datastore nfs-migration: needs 11 GiB, 10 GiB free after 30 GiB for this wave's other VMs (10% (10 GiB) kept as headroom)",
    });
    expect(fitOnDatastore(vmNeeding(0), ledger, true)).toBeUndefined();
  });
});
