import { placeProvisioning, type ProvisionPlacementVm } from '../../../../src/domain/placement';
import { GiB, local, node, shared } from './fixtures';

const vm = (name: string, overrides: Partial<ProvisionPlacementVm> = {}): ProvisionPlacementVm => ({
  key: `${name}#1`,
  name,
  memoryBytes: 4 * GiB,
  cpus: 2,
  disks: [{ slot: 'scsi0', storage: 'local-lvm', sizeBytes: 20 * GiB }],
  ...overrides,
});

const nodes = [
  node('pve1', { memoryBytes: 16 * GiB, committedBytes: 12 * GiB }),
  node('pve2', { memoryBytes: 32 * GiB }),
  node('pve3', { memoryBytes: 64 * GiB, online: false }),
];
const storages = [
  local('local-lvm', { pve1: 100, pve2: 180, pve3: 500 }),
  shared('nfs-images', ['pve1', 'pve2', 'pve3'], 300),
];

describe('provisioning placement: the same rules as a wave, for VMs whose record names no node', () => {
  it("places a VM without a node on an online node with room (the least committed), by the record's name", () => {
    const placement = placeProvisioning({ nodes, storages, vms: [vm('web01')] });
    expect(placement.ok).toBe(true);
    expect(placement.placed).toEqual([expect.objectContaining({ moid: 'web01#1', name: 'web01', node: 'pve2' })]);
    expect(placement.placed[0]!.disks).toEqual([
      expect.objectContaining({ label: 'scsi0', storage: 'local-lvm', capacityBytes: 20 * GiB }),
    ]);
  });

  it('keeps a node the record names (a pin), and refuses it with numbers when the storage there is too small', () => {
    const pinned = placeProvisioning({ nodes, storages, vms: [vm('db01', { node: 'pve1' })] });
    expect(pinned.placed.map((p) => p.node)).toEqual(['pve1']);
    const tooBig = placeProvisioning({
      nodes,
      storages,
      vms: [vm('db01', { node: 'pve2', disks: [{ slot: 'scsi0', storage: 'local-lvm', sizeBytes: 412 * GiB }] })],
    });
    expect(tooBig.ok).toBe(false);
    expect(tooBig.refused).toEqual([expect.objectContaining({ name: 'db01' })]);
    expect(tooBig.refused[0]!.refusals.map((r) => r.reason).join('\n')).toContain(
      'local-lvm on pve2: needs 412 GiB, 180 GiB free',
    );
    expect(tooBig.refused[0]!.refusals[0]).toMatchObject({
      subject: 'db01',
      resource: 'local-lvm on pve2',
      need: 412 * GiB,
      room: 180 * GiB,
    });
  });

  it('counts a batch together: two VMs never share the same free room, and the one that does not fit is refused alone', () => {
    const big = (name: string) => vm(name, { disks: [{ slot: 'scsi0', storage: 'local-lvm', sizeBytes: 150 * GiB }] });
    const placement = placeProvisioning({ nodes, storages, vms: [big('a1'), big('a2'), big('a3')] });
    // 180 GiB on pve2, 100 on pve1, pve3 offline: one VM of 150 GiB fits.
    expect(placement.placed.map((p) => [p.name, p.node])).toEqual([['a1', 'pve2']]);
    expect(placement.refused.map((r) => r.name)).toEqual(['a2', 'a3']);
    expect(placement.refused[0]!.refusals.map((r) => r.code)).toContain('placement-storage-room');
    const room = placement.storages.find((s) => s.storage === 'local-lvm' && s.node === 'pve2')!;
    expect([room.placedBytes, room.availAfterBytes]).toEqual([150 * GiB, 30 * GiB]);
  });

  it('keeps memory under the ratio, counting what is committed already', () => {
    const placement = placeProvisioning({
      nodes,
      storages,
      vms: [vm('m1', { memoryBytes: 24 * GiB }), vm('m2', { memoryBytes: 12 * GiB })],
    });
    expect(placement.placed.map((p) => [p.name, p.node])).toEqual([['m1', 'pve2']]);
    expect(placement.refused.map((r) => [r.name, r.refusals[0]!.code])).toEqual([['m2', 'placement-memory']]);
    const generous = placeProvisioning({
      nodes,
      storages,
      vms: [vm('m1', { memoryBytes: 24 * GiB }), vm('m2', { memoryBytes: 12 * GiB })],
      maxMemoryCommit: 2,
    });
    expect(generous.ok).toBe(true);
  });

  it('is deterministic: the same batch in any order gives the same placement', () => {
    const batch = ['c', 'a', 'b', 'd'].map((n) =>
      vm(n, {
        disks: [
          { slot: 'scsi0', storage: 'nfs-images', sizeBytes: 50 * GiB },
          { slot: 'scsi1', storage: 'local-lvm', sizeBytes: 10 * GiB },
        ],
      }),
    );
    const one = placeProvisioning({ nodes, storages, vms: batch });
    const other = placeProvisioning({
      nodes: [...nodes].reverse(),
      storages: [...storages].reverse(),
      vms: [...batch].reverse(),
    });
    expect(other.placed).toEqual(one.placed);
    expect(one.placed).toHaveLength(4);
    expect(one.placed.flatMap((p) => p.disks.map((d) => d.storage))).toEqual(
      Array(4).fill(['nfs-images', 'local-lvm']).flat(),
    );
  });

  it('refuses a storage unknown to the cluster, and a key with glob characters', () => {
    const placement = placeProvisioning({
      nodes,
      storages,
      vms: [vm('x1', { disks: [{ slot: 'scsi0', storage: 'ceph', sizeBytes: GiB }] })],
    });
    expect(placement.refused[0]!.refusals.map((r) => r.code)).toEqual(['placement-storage-unknown']);
    expect(() => placeProvisioning({ nodes, storages, vms: [vm('x1', { key: 'x*' })] })).toThrow(/glob characters/);
  });
});
