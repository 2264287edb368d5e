import { placeWave, recheckAtCutover, type CutoverRecheckInput, type PlacedVm } from '../../../../src/domain/placement';
import { cluster, disk, GiB, local, node, shared, vm } from './fixtures';

const web01 = vm('web01', { memoryBytes: 8 * GiB, disks: [disk('Hard disk 1', 20), disk('Hard disk 2', 40, 'ssd')] });
const placed: Pick<PlacedVm, 'node' | 'disks'> = {
  node: 'pve2',
  disks: [
    {
      label: 'Hard disk 1',
      datastore: 'vsanDatastore',
      storage: 'local-lvm',
      capacityBytes: 20 * GiB,
      storageBy: 'targetStorage',
    },
    {
      label: 'Hard disk 2',
      datastore: 'ssd',
      storage: 'nfs-images',
      capacityBytes: 40 * GiB,
      storageBy: 'storageMap 1 (datastore ssd)',
    },
  ],
};
const fresh = (overrides: Partial<CutoverRecheckInput> = {}): CutoverRecheckInput => ({
  vm: web01,
  placed,
  nodes: [node('pve1'), node('pve2', { committedBytes: 8 * GiB })],
  storages: [local('local-lvm', { pve1: 500, pve2: 500 }), shared('nfs-images', ['pve1', 'pve2'], 1000)],
  shellOnNode: true,
  ...overrides,
});

describe('recheckAtCutover', () => {
  it('passes when the VM still fits', () => expect(recheckAtCutover(fresh())).toEqual({ ok: true }));

  it('agrees with the placement it re-checks', () => {
    const placement = placeWave(cluster([web01], {}, { storageMap: [{ datastore: 'ssd', storage: 'nfs-images' }] }));
    const p = placement.placed[0]!;
    const input = cluster([]);
    expect(
      recheckAtCutover({ vm: web01, placed: p, nodes: input.nodes, storages: input.storages, shellOnNode: false }),
    ).toEqual({ ok: true });
  });

  it('refuses with numbers when the node filled up since planning', () => {
    const result = recheckAtCutover(fresh({ nodes: [node('pve2', { committedBytes: 60 * GiB })], shellOnNode: false }));
    expect(result).toEqual({
      ok: false,
      refusals: [
        {
          code: 'placement-memory',
          subject: 'web01',
          resource: 'memory on pve2',
          need: 8 * GiB,
          room: 4 * GiB,
          reason: 'memory on pve2: needs 8 GiB, 4 GiB free (limit 64 GiB = 1.0 × 64 GiB; 60 GiB committed)',
        },
      ],
    });
  });

  it('does not count the VM’s own shell twice (exact fit)', () => {
    expect(recheckAtCutover(fresh({ nodes: [node('pve2', { committedBytes: 64 * GiB })], shellOnNode: true }))).toEqual(
      { ok: true },
    );
    const over = recheckAtCutover(
      fresh({ nodes: [node('pve2', { committedBytes: 64 * GiB + 1 })], shellOnNode: true }),
    );
    expect(over.ok).toBe(false);
  });

  it('honours maxMemoryCommit', () => {
    const nodes = [node('pve2', { committedBytes: 90 * GiB })];
    expect(recheckAtCutover(fresh({ nodes, shellOnNode: false })).ok).toBe(false);
    expect(recheckAtCutover(fresh({ nodes, shellOnNode: false, maxMemoryCommit: 1.5 })).ok).toBe(false);
    expect(
      recheckAtCutover(
        fresh({ nodes: [node('pve2', { committedBytes: 88 * GiB })], shellOnNode: false, maxMemoryCommit: 1.5 }),
      ),
    ).toEqual({ ok: true });
  });

  it('refuses with numbers when local storage on the node filled up', () => {
    const result = recheckAtCutover(
      fresh({ storages: [local('local-lvm', { pve1: 500, pve2: 10 }), shared('nfs-images', ['pve1', 'pve2'], 1000)] }),
    );
    expect(result).toEqual({
      ok: false,
      refusals: [
        {
          code: 'placement-storage-room',
          subject: 'web01',
          resource: 'local-lvm on pve2',
          need: 20 * GiB,
          room: 10 * GiB,
          reason: 'local-lvm on pve2: needs 20 GiB, 10 GiB free (Hard disk 1)',
        },
      ],
    });
  });

  it('counts imports under way: on shared storage from any node, on local storage only on this node', () => {
    const storages = [local('local-lvm', { pve1: 500, pve2: 30 }), shared('nfs-images', ['pve1', 'pve2'], 50)];
    const reserved = [
      { storage: 'local-lvm', node: 'pve1', bytes: 400 * GiB },
      { storage: 'nfs-images', node: 'pve1', bytes: 15 * GiB },
    ];
    const result = recheckAtCutover(fresh({ storages, reserved }));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.refusals.map((r) => r.reason)).toEqual([
      'nfs-images (shared): needs 40 GiB, 35 GiB free (Hard disk 2), with imports under way still to write 15 GiB',
    ]);
    const local2 = recheckAtCutover(
      fresh({ storages, reserved: [{ storage: 'local-lvm', node: 'pve2', bytes: 15 * GiB }] }),
    );
    expect(!local2.ok && local2.refusals.map((r) => r.reason)).toEqual([
      'local-lvm on pve2: needs 20 GiB, 15 GiB free (Hard disk 1), with imports under way still to write 15 GiB',
    ]);
  });

  it('uses the disks’ current sizes', () => {
    const grown = { ...web01, disks: [disk('Hard disk 1', 600), disk('Hard disk 2', 40, 'ssd')] };
    const result = recheckAtCutover(fresh({ vm: grown }));
    expect(!result.ok && result.refusals.map((r) => r.reason)).toEqual([
      'local-lvm on pve2: needs 600 GiB, 500 GiB free (Hard disk 1)',
    ]);
  });

  it('refuses when the node went offline or away', () => {
    expect(recheckAtCutover(fresh({ nodes: [node('pve2', { online: false })] }))).toEqual({
      ok: false,
      refusals: [
        {
          code: 'placement-node-unavailable',
          subject: 'web01',
          resource: 'pve2',
          reason: 'web01 was planned on pve2, which is offline; plan the wave again',
        },
      ],
    });
    const gone = recheckAtCutover(fresh({ nodes: [node('pve1')] }));
    expect(!gone.ok && gone.refusals[0]!.reason).toBe(
      'web01 was planned on pve2, which is no longer a node of the cluster; plan the wave again',
    );
  });

  it('refuses a storage that is gone or no longer reachable, and lists every problem', () => {
    const result = recheckAtCutover(
      fresh({
        nodes: [node('pve2', { committedBytes: 64 * GiB, cpus: 1 })],
        storages: [local('local-lvm', { pve1: 500 })],
        shellOnNode: false,
      }),
    );
    expect(!result.ok && result.refusals.map((r) => r.code)).toEqual([
      'placement-cpu',
      'placement-memory',
      'placement-storage-unreachable',
      'placement-storage-unknown',
    ]);
  });

  it('passes a VM without disks', () => {
    expect(recheckAtCutover(fresh({ vm: { ...web01, disks: [] }, placed: { node: 'pve2', disks: [] } }))).toEqual({
      ok: true,
    });
  });
});
