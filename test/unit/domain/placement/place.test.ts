import {
  placeWave,
  placementOrder,
  storageFor,
  migrationDatastoreNeed,
  type Placement,
  type PlacementInput,
} from '../../../../src/domain/placement';
import { cluster, disk, GiB, local, node, shared, vm } from './fixtures';

const nodeOf = (placement: Placement, name: string) => placement.placed.find((p) => p.name === name)?.node;
const refusalsOf = (placement: Placement, name: string) =>
  placement.refused.find((r) => r.name === name)?.refusals ?? [];
const reasonsOf = (placement: Placement, name: string) => refusalsOf(placement, name).map((r) => r.reason);

describe('placeWave: an empty wave', () => {
  it('places nothing, refuses nothing, and reports the totals unchanged', () => {
    const placement = placeWave(cluster([], { nodes: [node('pve1', { committedBytes: 10 * GiB }), node('pve2')] }));
    expect(placement).toMatchObject({ ok: true, placed: [], refused: [], waveRefusals: [], notes: [] });
    expect(placement.nodes).toEqual([
      {
        node: 'pve1',
        online: true,
        usable: true,
        memoryBytes: 64 * GiB,
        limitBytes: 64 * GiB,
        committedBeforeBytes: 10 * GiB,
        committedAfterBytes: 10 * GiB,
        vms: [],
      },
      {
        node: 'pve2',
        online: true,
        usable: true,
        memoryBytes: 64 * GiB,
        limitBytes: 64 * GiB,
        committedBeforeBytes: 0,
        committedAfterBytes: 0,
        vms: [],
      },
    ]);
    expect(placement.storages.map((s) => [s.storage, s.node, s.placedBytes])).toEqual([
      ['local-lvm', 'pve1', 0],
      ['local-lvm', 'pve2', 0],
      ['local-lvm', 'pve3', 0],
      ['nfs-images', undefined, 0],
    ]);
  });

  it('passes the migration datastore check with nothing to move', () => {
    const placement = placeWave({
      ...cluster([]),
      migrationDatastore: { name: 'nfs-migration', capacityBytes: 100 * GiB, freeBytes: 0 },
    });
    expect(placement.ok).toBe(true);
    expect(placement.migrationDatastore).toMatchObject({ needBytes: 0, roomBytes: -10 * GiB, placedBytes: 0 });
  });

  it('does not refuse a VM whose disks are all on the migration datastore already, even past the headroom', () => {
    const a = vm('a', { disks: [disk('Hard disk 1', 50, 'nfs-migration')] });
    for (const partial of [false, true]) {
      const placement = placeWave({
        ...cluster([a], {}, { partial }),
        migrationDatastore: { name: 'nfs-migration', capacityBytes: 100 * GiB, freeBytes: 0 },
      });
      expect(placement.ok).toBe(true);
    }
  });
});

describe('placeWave: least loaded', () => {
  it('spreads equal VMs over equal nodes, ties broken by node name', () => {
    const placement = placeWave(cluster([vm('c'), vm('a'), vm('b')]));
    expect(placement.placed.map((p) => [p.name, p.node])).toEqual([
      ['a', 'pve1'],
      ['b', 'pve2'],
      ['c', 'pve3'],
    ]);
  });

  it('counts the memory of the VMs already on each node', () => {
    const placement = placeWave(
      cluster([vm('web01')], {
        nodes: [
          node('pve1', { committedBytes: 40 * GiB }),
          node('pve2', { committedBytes: 10 * GiB }),
          node('pve3', { committedBytes: 20 * GiB }),
        ],
      }),
    );
    expect(nodeOf(placement, 'web01')).toBe('pve2');
    expect(placement.placed[0]!.reasons).toEqual([
      'any online node (pve1, pve2, pve3)',
      'pve2: least memory committed after placing (14 GiB of 64 GiB)',
    ]);
  });

  it('compares load as a share of each node’s memory', () => {
    const placement = placeWave(
      cluster(
        [vm('web01')],
        {
          nodes: [
            node('big', { memoryBytes: 256 * GiB, committedBytes: 64 * GiB }),
            node('small', { memoryBytes: 32 * GiB, committedBytes: 4 * GiB }),
          ],
          storages: [shared('nfs-images', ['big', 'small'], 100)],
        },
        { targetStorage: 'nfs-images' },
      ),
    );
    // big: 68/256 = 27 %, small: 8/32 = 25 %.
    expect(nodeOf(placement, 'web01')).toBe('small');
  });

  it('uses only migration.nodes, and notes listed nodes that are offline or unknown', () => {
    const placement = placeWave(
      cluster(
        [vm('a'), vm('b')],
        { nodes: [node('pve1'), node('pve2'), node('pve3', { online: false })] },
        { nodes: ['pve2', 'pve3', 'pve9'] },
      ),
    );
    expect(placement.placed.map((p) => p.node)).toEqual(['pve2', 'pve2']);
    expect(placement.placed[0]!.reasons[0]).toBe('any node of migration.nodes (pve2)');
    expect(placement.notes).toEqual([
      'pve3 is offline: nothing is placed there',
      'migration.nodes names pve9, which is not a node of the cluster',
    ]);
    expect(placement.nodes.map((n) => [n.node, n.usable])).toEqual([
      ['pve1', false],
      ['pve2', true],
      ['pve3', false],
    ]);
  });

  it('never places on an offline node', () => {
    const placement = placeWave(
      cluster([vm('a'), vm('b'), vm('c')], { nodes: [node('pve1', { online: false }), node('pve2'), node('pve3')] }),
    );
    expect(placement.placed.map((p) => p.node).sort()).toEqual(['pve2', 'pve2', 'pve3']);
  });

  it('refuses every VM when no node is online', () => {
    const placement = placeWave(cluster([vm('a')], { nodes: [node('pve1', { online: false })] }));
    expect(placement.ok).toBe(false);
    expect(refusalsOf(placement, 'a')).toEqual([
      { code: 'placement-no-node', subject: 'a', reason: 'no Proxmox node is online to place a on' },
    ]);
  });

  it('refuses every VM when migration.nodes names no usable node', () => {
    const placement = placeWave(cluster([vm('a')], {}, { nodes: ['pve9'] }));
    expect(reasonsOf(placement, 'a')).toEqual(['no node of migration.nodes (pve9) is online and in the cluster']);
  });
});

describe('placeWave: pins', () => {
  it('pins by folder, including subfolders', () => {
    const placement = placeWave(
      cluster(
        [vm('db-01', { folder: '/DC0/vm/db/prod' }), vm('web01', { folder: '/DC0/vm/web' })],
        {},
        { rules: [{ match: { folder: '/DC0/vm/db' }, nodes: ['pve3'] }] },
      ),
    );
    expect(nodeOf(placement, 'db-01')).toBe('pve3');
    expect(nodeOf(placement, 'web01')).toBe('pve1');
    expect(placement.placed.find((p) => p.name === 'db-01')!.reasons).toEqual([
      'pinned by placement rule 1 (folder /DC0/vm/db) to pve3',
      'pve3: the only allowed node it fits on (4 GiB of 64 GiB memory committed after)',
    ]);
  });

  it('pins by tag, with or without the category', () => {
    const vms = [
      vm('a', { tags: ['tier/gold'] }),
      vm('b', { tags: ['other/gold'] }),
      vm('c', { tags: ['tier/silver'] }),
    ];
    const byCategory = placeWave(cluster(vms, {}, { rules: [{ match: { tag: 'tier/gold' }, nodes: ['pve2'] }] }));
    expect(byCategory.placed.map((p) => [p.name, p.node])).toEqual([
      ['a', 'pve2'],
      ['b', 'pve1'],
      ['c', 'pve3'],
    ]);
    const anyCategory = placeWave(cluster(vms, {}, { rules: [{ match: { tag: 'gold' }, nodes: ['pve2'] }] }));
    expect(anyCategory.placed.map((p) => [p.name, p.node])).toEqual([
      ['a', 'pve2'],
      ['b', 'pve2'],
      ['c', 'pve1'],
    ]);
  });

  it('pins by name pattern', () => {
    const placement = placeWave(
      cluster([vm('db-01'), vm('db-02'), vm('web01')], {}, { rules: [{ match: { name: 'db-*' }, nodes: ['pve3'] }] }),
    );
    expect(placement.placed.map((p) => [p.name, p.node])).toEqual([
      ['db-01', 'pve3'],
      ['db-02', 'pve3'],
      ['web01', 'pve1'],
    ]);
  });

  it('takes the first rule that matches', () => {
    const rules = [
      { match: { name: 'db-*' }, nodes: ['pve2'] },
      { match: { tag: 'tier/gold' }, nodes: ['pve3'] },
    ];
    const placement = placeWave(
      cluster([vm('db-01', { tags: ['tier/gold'] }), vm('app', { tags: ['tier/gold'] })], {}, { rules }),
    );
    expect(nodeOf(placement, 'db-01')).toBe('pve2');
    expect(nodeOf(placement, 'app')).toBe('pve3');
    expect(placement.placed.find((p) => p.name === 'app')!.reasons[0]).toBe(
      'pinned by placement rule 2 (tag tier/gold) to pve3',
    );
  });

  it('pins to a node group: any of its nodes, least loaded first', () => {
    const placement = placeWave(
      cluster(
        [vm('a'), vm('b'), vm('c')],
        { nodes: [node('pve1'), node('pve2', { committedBytes: 8 * GiB }), node('pve3')] },
        { rules: [{ match: {}, nodes: ['pve3', 'pve2'] }] },
      ),
    );
    expect(placement.placed.map((p) => [p.name, p.node])).toEqual([
      ['a', 'pve3'],
      ['b', 'pve3'],
      ['c', 'pve2'],
    ]);
    expect(placement.placed[0]!.reasons[0]).toBe('pinned by placement rule 1 (every VM) to pve2, pve3');
  });

  it('refuses a VM pinned to an offline node, saying so', () => {
    const placement = placeWave(
      cluster(
        [vm('db-01')],
        { nodes: [node('pve1'), node('pve3', { online: false })] },
        { rules: [{ match: { name: 'db-*' }, nodes: ['pve3'] }] },
      ),
    );
    expect(placement.ok).toBe(false);
    expect(refusalsOf(placement, 'db-01')).toEqual([
      {
        code: 'placement-pin-unusable',
        subject: 'db-01',
        resource: 'pve3',
        reason: 'db-01 is pinned by placement rule 1 (name db-*) to pve3, and none can take it: pve3 is offline',
      },
    ]);
  });

  it('refuses a VM pinned to an unknown node or one outside migration.nodes', () => {
    const placement = placeWave(
      cluster([vm('db-01')], {}, { nodes: ['pve1'], rules: [{ match: { name: 'db-*' }, nodes: ['pve9', 'pve2'] }] }),
    );
    expect(reasonsOf(placement, 'db-01')).toEqual([
      'db-01 is pinned by placement rule 1 (name db-*) to pve2, pve9, and none can take it: pve2 is not in migration.nodes; pve9 is not a node of the cluster',
    ]);
  });

  it('refuses a rule that names no node', () => {
    const placement = placeWave(cluster([vm('a')], {}, { rules: [{ match: { name: 'a' }, nodes: [] }] }));
    expect(reasonsOf(placement, 'a')).toEqual([
      'a is pinned by placement rule 1 (name a) to no node, and none can take it',
    ]);
  });

  it('uses the rest of a node group when one of its nodes is offline, and says why', () => {
    const placement = placeWave(
      cluster(
        [vm('db-01')],
        { nodes: [node('pve1'), node('pve2'), node('pve3', { online: false })] },
        { rules: [{ match: { name: 'db-*' }, nodes: ['pve2', 'pve3'] }] },
      ),
    );
    expect(nodeOf(placement, 'db-01')).toBe('pve2');
    expect(placement.placed[0]!.reasons[0]).toBe(
      'pinned by placement rule 1 (name db-*) to pve2, pve3 (pve3 is offline)',
    );
  });

  it('places pinned VMs before unpinned ones, so they get their node', () => {
    const nodes = [node('pve1', { memoryBytes: 40 * GiB }), node('pve2', { memoryBytes: 40 * GiB })];
    const placement = placeWave(
      cluster(
        [vm('a-big', { memoryBytes: 32 * GiB }), vm('z-pinned', { memoryBytes: 16 * GiB })],
        { nodes },
        { rules: [{ match: { name: 'z-*' }, nodes: ['pve1'] }] },
      ),
    );
    expect(placement.ok).toBe(true);
    expect(nodeOf(placement, 'z-pinned')).toBe('pve1');
    expect(nodeOf(placement, 'a-big')).toBe('pve2');
  });
});

describe('placeWave: memory commitment', () => {
  const one = (committedGiB: number) => ({ nodes: [node('pve1', { committedBytes: committedGiB * GiB })] });

  it('fits an exact fit under ratio 1.0', () => {
    expect(placeWave(cluster([vm('a', { memoryBytes: 8 * GiB })], one(56))).ok).toBe(true);
  });

  it('refuses one byte more, with the numbers', () => {
    const placement = placeWave(cluster([vm('a', { memoryBytes: 8 * GiB + 1 })], one(56)));
    expect(refusalsOf(placement, 'a')).toEqual([
      {
        code: 'placement-memory',
        subject: 'a',
        resource: 'memory on pve1',
        need: 8 * GiB + 1,
        room: 8 * GiB,
        reason: 'memory on pve1: needs 8.1 GiB, 8 GiB free (limit 64 GiB = 1.0 × 64 GiB; 56 GiB committed)',
      },
    ]);
  });

  it('allows overcommitment up to ratio 1.5', () => {
    expect(placeWave(cluster([vm('a', { memoryBytes: 6 * GiB })], one(90), { maxMemoryCommit: 1.5 })).ok).toBe(true);
    const placement = placeWave(cluster([vm('a', { memoryBytes: 8 * GiB })], one(90), { maxMemoryCommit: 1.5 }));
    expect(reasonsOf(placement, 'a')).toEqual([
      'memory on pve1: needs 8 GiB, 6 GiB free (limit 96 GiB = 1.5 × 64 GiB; 90 GiB committed)',
    ]);
    expect(placement.nodes[0]!.limitBytes).toBe(96 * GiB);
  });

  it('counts the wave’s own VMs as they are placed', () => {
    const vms = [
      vm('a', { memoryBytes: 24 * GiB }),
      vm('b', { memoryBytes: 24 * GiB }),
      vm('c', { memoryBytes: 24 * GiB }),
    ];
    const placement = placeWave(cluster(vms, one(0), { partial: true }));
    expect(placement.placed.map((p) => p.name)).toEqual(['a', 'b']);
    expect(reasonsOf(placement, 'c')).toEqual([
      'memory on pve1: needs 24 GiB, 16 GiB free (limit 64 GiB = 1.0 × 64 GiB; 48 GiB committed, 48 GiB of it by this wave)',
    ]);
    expect(placement.nodes[0]).toMatchObject({
      committedBeforeBytes: 0,
      committedAfterBytes: 48 * GiB,
      vms: ['a', 'b'],
    });
  });

  it('shows no room, not a negative one, on a node already over its limit', () => {
    const placement = placeWave(cluster([vm('a')], one(70)));
    expect(refusalsOf(placement, 'a')[0]).toMatchObject({
      room: 0,
      reason: 'memory on pve1: needs 4 GiB, 0 GiB free (limit 64 GiB = 1.0 × 64 GiB; 70 GiB committed)',
    });
  });

  it('places the biggest VMs first, so a big one is not starved by small ones', () => {
    const nodes = [node('pve1', { memoryBytes: 32 * GiB }), node('pve2', { memoryBytes: 32 * GiB })];
    const vms = [
      vm('s1', { memoryBytes: 16 * GiB }),
      vm('s2', { memoryBytes: 16 * GiB }),
      vm('big', { memoryBytes: 32 * GiB }),
    ];
    const placement = placeWave(cluster(vms, { nodes }));
    expect(placement.ok).toBe(true);
    expect(nodeOf(placement, 'big')).toBe('pve1');
    expect([nodeOf(placement, 's1'), nodeOf(placement, 's2')]).toEqual(['pve2', 'pve2']);
  });

  it('treats a VM without memory as fitting anywhere, even a node with none', () => {
    const placement = placeWave(
      cluster([vm('a', { memoryBytes: 0 })], {
        nodes: [node('pve1', { memoryBytes: 0 })],
        storages: [local('local-lvm', { pve1: 100 })],
      }),
    );
    expect(nodeOf(placement, 'a')).toBe('pve1');
  });
});

describe('placeWave: CPUs', () => {
  it('refuses a VM with more vCPUs than any node has', () => {
    const placement = placeWave(cluster([vm('a', { cpus: 48 })], { nodes: [node('pve1', { cpus: 32 })] }));
    expect(refusalsOf(placement, 'a')).toEqual([
      {
        code: 'placement-cpu',
        subject: 'a',
        resource: 'CPUs on pve1',
        need: 48,
        room: 32,
        reason: 'CPUs on pve1: a has 48 vCPUs, pve1 only 32 (Proxmox refuses a VM with more vCPUs than its node)',
      },
    ]);
  });

  it('puts a wide VM on the node with enough CPUs', () => {
    const placement = placeWave(
      cluster([vm('a', { cpus: 48 })], { nodes: [node('pve1', { cpus: 32 }), node('pve2', { cpus: 64 })] }),
    );
    expect(nodeOf(placement, 'a')).toBe('pve2');
    expect(placement.placed[0]!.reasons).toContain(
      'not pve1: CPUs on pve1: a has 48 vCPUs, pve1 only 32 (Proxmox refuses a VM with more vCPUs than its node)',
    );
  });
});

describe('placeWave: anti-affinity', () => {
  const loaded = {
    nodes: [node('pve1'), node('pve2', { committedBytes: 30 * GiB }), node('pve3', { committedBytes: 30 * GiB })],
  };

  it('spreads a tag group over the nodes even when one node is much emptier', () => {
    const vms = ['web01', 'web02', 'web03'].map((name) => vm(name, { tags: ['app/web'] }));
    const without = placeWave(cluster(vms, loaded));
    expect(without.placed.map((p) => p.node)).toEqual(['pve1', 'pve1', 'pve1']);
    const placement = placeWave(cluster(vms, loaded, { antiAffinity: [{ tag: 'app/web' }] }));
    expect(placement.placed.map((p) => [p.name, p.node])).toEqual([
      ['web01', 'pve1'],
      ['web02', 'pve2'],
      ['web03', 'pve3'],
    ]);
    expect(placement.notes).toEqual([]);
    expect(placement.placed[1]!.reasons).toEqual([
      'any online node (pve1, pve2, pve3)',
      'anti-affinity group 1 (tag app/web): the 1st of its 3 VMs on pve2 (at most 1 per node)',
      'pve2: fewest of its anti-affinity groups, then least memory committed after placing (34 GiB of 64 GiB)',
      'not pve1: anti-affinity group 1 (tag app/web): pve1 already holds 1 of its VMs (at most 1 per node)',
    ]);
  });

  it('spreads a name-pattern group, leaving other VMs alone', () => {
    const vms = [vm('db-01'), vm('db-02'), vm('app')];
    const placement = placeWave(cluster(vms, loaded, { antiAffinity: [{ name: 'db-*' }] }));
    expect(new Set([nodeOf(placement, 'db-01'), nodeOf(placement, 'db-02')]).size).toBe(2);
    expect(nodeOf(placement, 'app')).toBe('pve1');
  });

  it('spreads a group larger than the node count as evenly as possible, and says so', () => {
    const vms = ['w1', 'w2', 'w3', 'w4', 'w5'].map((name) => vm(name, { tags: ['app/web'] }));
    const placement = placeWave(cluster(vms, loaded, { antiAffinity: [{ tag: 'app/web' }] }));
    expect(placement.ok).toBe(true);
    const counts = placement.nodes.map((n) => n.vms.length);
    expect(counts).toEqual([2, 2, 1]);
    expect(placement.notes).toEqual([
      'anti-affinity group 1 (tag app/web) has 5 VMs for 3 nodes: at most 2 per node, spread as evenly as possible',
    ]);
  });

  it('counts only the nodes the group’s members may use', () => {
    const vms = ['w1', 'w2', 'w3'].map((name) => vm(name, { tags: ['app/web'] }));
    const placement = placeWave(
      cluster(vms, {}, { antiAffinity: [{ tag: 'web' }], rules: [{ match: { tag: 'web' }, nodes: ['pve1', 'pve2'] }] }),
    );
    expect(placement.ok).toBe(true);
    expect(placement.nodes.map((n) => n.vms.length)).toEqual([2, 1, 0]);
    expect(placement.notes).toEqual([
      'anti-affinity group 1 (tag web) has 3 VMs for 2 nodes: at most 2 per node, spread as evenly as possible',
    ]);
  });

  it('is a hard constraint: refuses rather than doubling up, with every reason', () => {
    const nodes = [node('pve1'), node('pve2', { committedBytes: 62 * GiB })];
    const vms = [vm('web01', { tags: ['app/web'] }), vm('web02', { tags: ['app/web'] })];
    const placement = placeWave(cluster(vms, { nodes }, { antiAffinity: [{ tag: 'app/web' }], partial: true }));
    expect(nodeOf(placement, 'web01')).toBe('pve1');
    expect(refusalsOf(placement, 'web02').map((r) => [r.code, r.reason])).toEqual([
      [
        'placement-anti-affinity',
        'anti-affinity group 1 (tag app/web): pve1 already holds 1 of its VMs (at most 1 per node)',
      ],
      ['placement-memory', 'memory on pve2: needs 4 GiB, 2 GiB free (limit 64 GiB = 1.0 × 64 GiB; 62 GiB committed)'],
    ]);
  });

  it('honours every group a VM is in', () => {
    const vms = [vm('a', { tags: ['app/x'] }), vm('b', { tags: ['app/x', 'rack/r1'] }), vm('c', { tags: ['rack/r1'] })];
    const placement = placeWave(
      cluster(vms, { nodes: [node('pve1'), node('pve2')] }, { antiAffinity: [{ tag: 'app/x' }, { tag: 'rack/r1' }] }),
    );
    expect(placement.ok).toBe(true);
    expect(nodeOf(placement, 'a')).not.toBe(nodeOf(placement, 'b'));
    expect(nodeOf(placement, 'b')).not.toBe(nodeOf(placement, 'c'));
  });
});

describe('storageFor', () => {
  const map = [
    { datastore: 'ssd-*', storage: 'fast' },
    { label: 'Hard disk 2', storage: 'bulk' },
    { datastore: 'vsan*', label: 'Hard disk 3', storage: 'both' },
  ];
  it.each([
    [{ label: 'Hard disk 1', datastore: 'ssd-01' }, 'fast', 'storageMap 1 (datastore ssd-*)'],
    [{ label: 'Hard disk 2', datastore: 'ssd-01' }, 'fast', 'storageMap 1 (datastore ssd-*)'],
    [{ label: 'Hard disk 2', datastore: 'vsan' }, 'bulk', 'storageMap 2 (label Hard disk 2)'],
    [{ label: 'Hard disk 3', datastore: 'vsan' }, 'both', 'storageMap 3 (datastore vsan*, label Hard disk 3)'],
    [{ label: 'Hard disk 3', datastore: 'nfs' }, 'local-lvm', 'targetStorage'],
    [{ label: 'Hard disk 1', datastore: 'vsan' }, 'local-lvm', 'targetStorage'],
  ])('%p → %p', (d, storage, by) => expect(storageFor(d, map, 'local-lvm')).toEqual({ storage, by }));

  it('falls back with an empty map', () =>
    expect(storageFor({ label: 'x', datastore: 'y' }, [], 't')).toEqual({ storage: 't', by: 'targetStorage' }));
  it('maps every disk with an entry that names nothing', () =>
    expect(storageFor({ label: 'x', datastore: 'y' }, [{ storage: 's' }], 't')).toEqual({
      storage: 's',
      by: 'storageMap 1 (every disk)',
    }));
});

describe('placeWave: storage', () => {
  it('chooses a storage per disk by datastore, by label, else targetStorage', () => {
    const a = vm('a', { disks: [disk('Hard disk 1', 20, 'ssd-01'), disk('Hard disk 2', 30), disk('Hard disk 3', 40)] });
    const placement = placeWave(
      cluster(
        [a],
        {},
        {
          storageMap: [
            { datastore: 'ssd-*', storage: 'nfs-images' },
            { label: 'Hard disk 2', storage: 'nfs-images' },
          ],
        },
      ),
    );
    expect(placement.placed[0]!.disks).toEqual([
      {
        label: 'Hard disk 1',
        datastore: 'ssd-01',
        storage: 'nfs-images',
        capacityBytes: 20 * GiB,
        storageBy: 'storageMap 1 (datastore ssd-*)',
      },
      {
        label: 'Hard disk 2',
        datastore: 'vsanDatastore',
        storage: 'nfs-images',
        capacityBytes: 30 * GiB,
        storageBy: 'storageMap 2 (label Hard disk 2)',
      },
      {
        label: 'Hard disk 3',
        datastore: 'vsanDatastore',
        storage: 'local-lvm',
        capacityBytes: 40 * GiB,
        storageBy: 'targetStorage',
      },
    ]);
    expect(placement.storages.find((s) => s.storage === 'nfs-images')).toEqual({
      storage: 'nfs-images',
      node: undefined,
      shared: true,
      availBeforeBytes: 1000 * GiB,
      placedBytes: 50 * GiB,
      availAfterBytes: 950 * GiB,
    });
    expect(placement.storages.find((s) => s.storage === 'local-lvm' && s.node === 'pve1')).toMatchObject({
      placedBytes: 40 * GiB,
      availAfterBytes: 460 * GiB,
    });
  });

  it('chooses a node that reaches the storage', () => {
    const placement = placeWave(
      cluster([vm('a')], { storages: [local('local-zfs', { pve2: 500 })] }, { targetStorage: 'local-zfs' }),
    );
    expect(nodeOf(placement, 'a')).toBe('pve2');
    expect(placement.placed[0]!.reasons).toContain(
      'not pve1: local-zfs (for Hard disk 1) is not reachable from pve1: it is on pve2',
    );
  });

  it('refuses a VM pinned to a node that does not reach its storage', () => {
    const placement = placeWave(
      cluster(
        [vm('a')],
        { storages: [local('local-zfs', { pve2: 500, pve3: 500 })] },
        { targetStorage: 'local-zfs', rules: [{ match: {}, nodes: ['pve1'] }] },
      ),
    );
    expect(refusalsOf(placement, 'a')).toEqual([
      {
        code: 'placement-storage-unreachable',
        subject: 'a',
        resource: 'local-zfs',
        reason: 'local-zfs (for Hard disk 1) is not reachable from pve1: it is on pve2, pve3',
      },
    ]);
  });

  it('refuses a storage the cluster does not have', () => {
    const placement = placeWave(cluster([vm('a')], {}, { storageMap: [{ datastore: '*', storage: 'ghost' }] }));
    expect(refusalsOf(placement, 'a')).toEqual([
      {
        code: 'placement-storage-unknown',
        subject: 'a',
        resource: 'ghost',
        reason:
          'Hard disk 1 would be imported onto storage ghost (storageMap 1 (datastore *)), which the cluster does not have',
      },
    ]);
  });

  it('refuses a storage that holds no VM disks', () => {
    const placement = placeWave(
      cluster([vm('a')], { storages: [shared('isos', ['pve1'], 100, ['iso', 'vztmpl'])] }, { targetStorage: 'isos' }),
    );
    expect(reasonsOf(placement, 'a')).toEqual([
      'storage isos does not hold VM disks (content: iso, vztmpl); add "images" or map Hard disk 1 elsewhere',
    ]);
  });

  it('counts local storage per node', () => {
    const storages = [local('local-lvm', { pve1: 100, pve2: 100, pve3: 100 })];
    const vms = ['a', 'b', 'c', 'd'].map((name) => vm(name, { disks: [disk('Hard disk 1', 80)] }));
    const placement = placeWave(
      cluster(
        vms,
        {
          storages,
          nodes: [node('pve1'), node('pve2', { committedBytes: 40 * GiB }), node('pve3', { committedBytes: 40 * GiB })],
        },
        { partial: true },
      ),
    );
    expect(placement.placed.map((p) => [p.name, p.node])).toEqual([
      ['a', 'pve1'],
      ['b', 'pve2'],
      ['c', 'pve3'],
    ]);
    expect(refusalsOf(placement, 'd').map((r) => r.reason)).toEqual([
      'local-lvm on pve1: needs 80 GiB, 20 GiB free after 80 GiB placed by this wave (Hard disk 1)',
      'local-lvm on pve2: needs 80 GiB, 20 GiB free after 80 GiB placed by this wave (Hard disk 1)',
      'local-lvm on pve3: needs 80 GiB, 20 GiB free after 80 GiB placed by this wave (Hard disk 1)',
    ]);
    expect(refusalsOf(placement, 'd')[0]).toMatchObject({
      code: 'placement-storage-room',
      resource: 'local-lvm on pve1',
      need: 80 * GiB,
      room: 20 * GiB,
    });
    expect(placement.storages.map((s) => [s.node, s.placedBytes, s.availAfterBytes])).toEqual([
      ['pve1', 80 * GiB, 20 * GiB],
      ['pve2', 80 * GiB, 20 * GiB],
      ['pve3', 80 * GiB, 20 * GiB],
    ]);
  });

  it('counts shared storage once for every node, and says so once', () => {
    const storages = [shared('nfs-images', ['pve1', 'pve2', 'pve3'], 100)];
    const vms = [vm('a', { disks: [disk('Hard disk 1', 60)] }), vm('b', { disks: [disk('Hard disk 1', 60)] })];
    const placement = placeWave(cluster(vms, { storages }, { targetStorage: 'nfs-images', partial: true }));
    expect(placement.placed.map((p) => p.name)).toEqual(['a']);
    expect(refusalsOf(placement, 'b')).toEqual([
      {
        code: 'placement-storage-room',
        subject: 'b',
        resource: 'nfs-images (shared)',
        need: 60 * GiB,
        room: 40 * GiB,
        reason: 'nfs-images (shared): needs 60 GiB, 40 GiB free after 60 GiB placed by this wave (Hard disk 1)',
      },
    ]);
    expect(placement.storages).toEqual([
      {
        storage: 'nfs-images',
        node: undefined,
        shared: true,
        availBeforeBytes: 100 * GiB,
        placedBytes: 60 * GiB,
        availAfterBytes: 40 * GiB,
      },
    ]);
  });

  it('takes the smallest room a node reports for shared storage', () => {
    const storage = shared('nfs-images', ['pve1', 'pve2'], 100);
    storage.nodes[1]!.availBytes = 50 * GiB;
    const placement = placeWave(
      cluster(
        [vm('a', { disks: [disk('Hard disk 1', 60)] })],
        { nodes: [node('pve1'), node('pve2')], storages: [storage] },
        { targetStorage: 'nfs-images' },
      ),
    );
    expect(reasonsOf(placement, 'a')).toEqual(['nfs-images (shared): needs 60 GiB, 50 GiB free (Hard disk 1)']);
  });

  it('adds up a VM’s disks on the same storage', () => {
    const placement = placeWave(
      cluster([vm('a', { disks: [disk('Hard disk 1', 30), disk('Hard disk 2', 30)] })], {
        nodes: [node('pve1')],
        storages: [local('local-lvm', { pve1: 50 })],
      }),
    );
    expect(reasonsOf(placement, 'a')).toEqual([
      'local-lvm on pve1: needs 60 GiB, 50 GiB free (Hard disk 1, Hard disk 2)',
    ]);
  });

  it('fits an exact fit, and a zero-size disk on a full storage', () => {
    const storages = [local('local-lvm', { pve1: 500 }), local('full', { pve1: 0 })];
    const a = vm('a', { disks: [disk('Hard disk 1', 500), disk('Hard disk 2', 0, 'ssd')] });
    const placement = placeWave(
      cluster([a], { nodes: [node('pve1')], storages }, { storageMap: [{ datastore: 'ssd', storage: 'full' }] }),
    );
    expect(placement.ok).toBe(true);
    expect(placement.storages.map((s) => [s.storage, s.availAfterBytes])).toEqual([
      ['full', 0],
      ['local-lvm', 0],
    ]);
  });

  it('places a VM without disks', () => {
    expect(placeWave(cluster([vm('a', { disks: [] })])).placed[0]).toMatchObject({ node: 'pve1', disks: [] });
  });

  it('refuses a zero-size disk on a storage the node cannot reach', () => {
    const placement = placeWave(
      cluster([vm('a', { disks: [disk('Hard disk 1', 0)] })], {
        nodes: [node('pve1')],
        storages: [local('local-lvm', { pve2: 0 })],
      }),
    );
    expect(refusalsOf(placement, 'a')[0]!.code).toBe('placement-storage-unreachable');
  });
});

describe('placeWave: a wave that does not fit', () => {
  const vms = [vm('a'), vm('b'), vm('huge', { memoryBytes: 100 * GiB }), vm('wide', { cpus: 64 })];
  const input = cluster(vms, { nodes: [node('pve1'), node('pve2')] });

  it('is refused whole, naming every reason with numbers', () => {
    const placement = placeWave(input);
    expect(placement.ok).toBe(false);
    expect(placement.placed).toEqual([]);
    expect(placement.refused.map((r) => r.name)).toEqual(['a', 'b', 'huge', 'wide']);
    expect(reasonsOf(placement, 'huge')).toEqual([
      'memory on pve1: needs 100 GiB, 64 GiB free (limit 64 GiB = 1.0 × 64 GiB; 0 GiB committed)',
      'memory on pve2: needs 100 GiB, 64 GiB free (limit 64 GiB = 1.0 × 64 GiB; 0 GiB committed)',
    ]);
    expect(reasonsOf(placement, 'wide')).toEqual([
      'CPUs on pve1: wide has 64 vCPUs, pve1 only 32 (Proxmox refuses a VM with more vCPUs than its node)',
      'CPUs on pve2: wide has 64 vCPUs, pve2 only 32 (Proxmox refuses a VM with more vCPUs than its node)',
    ]);
    expect(refusalsOf(placement, 'a')).toEqual([
      {
        code: 'placement-wave-refused',
        subject: 'a',
        reason:
          'a fits on pve1, but the wave is refused whole: huge, wide do not fit; set partial to migrate the VMs that fit',
      },
    ]);
    expect(placement.nodes.map((n) => [n.committedAfterBytes, n.vms])).toEqual([
      [0, []],
      [0, []],
    ]);
    expect(placement.storages.every((s) => s.placedBytes === 0)).toBe(true);
  });

  it('with partial, refuses only the VMs that do not fit', () => {
    const placement = placeWave({ ...input, settings: { ...input.settings, partial: true } });
    expect(placement.ok).toBe(false);
    expect(placement.placed.map((p) => [p.name, p.node])).toEqual([
      ['a', 'pve1'],
      ['b', 'pve2'],
    ]);
    expect(placement.refused.map((r) => r.name)).toEqual(['huge', 'wide']);
    expect(placement.refused.flatMap((r) => r.refusals).some((r) => r.code === 'placement-wave-refused')).toBe(false);
    expect(placement.nodes.map((n) => n.vms)).toEqual([['a'], ['b']]);
  });

  it('says "does" for one VM that does not fit', () => {
    const placement = placeWave(cluster([vm('a'), vm('huge', { memoryBytes: 100 * GiB })]));
    expect(reasonsOf(placement, 'a')).toEqual([
      'a fits on pve1, but the wave is refused whole: huge does not fit; set partial to migrate the VMs that fit',
    ]);
  });
});

describe('placeWave: the migration datastore', () => {
  const datastore = { name: 'nfs-migration', capacityBytes: 1000 * GiB, freeBytes: 300 * GiB };
  const vms = [
    vm('a', { disks: [disk('Hard disk 1', 100)] }),
    vm('b', { disks: [disk('Hard disk 1', 100)] }),
    vm('c', { disks: [disk('Hard disk 1', 50)] }),
  ];

  it('fits an exact fit after the default 10% headroom', () => {
    const placement = placeWave({ ...cluster(vms.slice(0, 2)), migrationDatastore: datastore });
    expect(placement.ok).toBe(true);
    expect(placement.migrationDatastore).toEqual({
      name: 'nfs-migration',
      capacityBytes: 1000 * GiB,
      freeBytes: 300 * GiB,
      headroomBytes: 100 * GiB,
      roomBytes: 200 * GiB,
      needBytes: 200 * GiB,
      placedBytes: 200 * GiB,
    });
  });

  it('refuses the wave whole when every disk together does not fit', () => {
    const placement = placeWave({ ...cluster(vms), migrationDatastore: datastore });
    expect(placement.ok).toBe(false);
    expect(placement.placed).toEqual([]);
    expect(placement.waveRefusals).toEqual([
      {
        code: 'placement-migration-datastore',
        subject: 'nfs-migration',
        resource: 'migration datastore nfs-migration',
        need: 250 * GiB,
        room: 200 * GiB,
        reason:
          'migration datastore nfs-migration: needs 250 GiB, 200 GiB free for every disk of the wave (300 GiB free, 10% (100 GiB) kept as headroom)',
      },
    ]);
    expect(reasonsOf(placement, 'a')).toEqual([
      'a fits on pve1, but the wave is refused whole: migration datastore nfs-migration: needs 250 GiB, 200 GiB free for every disk of the wave (300 GiB free, 10% (100 GiB) kept as headroom); set partial to migrate the VMs that fit',
    ]);
  });

  it('with partial, refuses the VMs whose disks no longer fit', () => {
    const placement = placeWave({ ...cluster(vms, {}, { partial: true }), migrationDatastore: datastore });
    expect(placement.placed.map((p) => p.name)).toEqual(['a', 'b']);
    expect(placement.waveRefusals).toEqual([]);
    expect(refusalsOf(placement, 'c')).toEqual([
      {
        code: 'placement-migration-datastore',
        subject: 'c',
        resource: 'migration datastore nfs-migration',
        need: 50 * GiB,
        room: 0,
        reason:
          "migration datastore nfs-migration: needs 50 GiB, 0 GiB free after 200 GiB for this wave's other VMs (10% (100 GiB) kept as headroom)",
      },
    ]);
    expect(placement.migrationDatastore).toMatchObject({ needBytes: 250 * GiB, placedBytes: 200 * GiB });
  });

  it('honours a headroom setting', () => {
    expect(placeWave({ ...cluster(vms, {}, { migrationHeadroom: 0.05 }), migrationDatastore: datastore }).ok).toBe(
      true,
    );
    expect(
      placeWave({ ...cluster(vms, {}, { migrationHeadroom: 0 }), migrationDatastore: datastore }).migrationDatastore,
    ).toMatchObject({ headroomBytes: 0, roomBytes: 300 * GiB });
    expect(
      placeWave({ ...cluster(vms.slice(0, 1), {}, { migrationHeadroom: 0.3 }), migrationDatastore: datastore }).ok,
    ).toBe(false);
  });

  it('counts only disks not there yet, by the bytes they take', () => {
    const d = [
      disk('Hard disk 1', 500, 'nfs-migration'),
      disk('Hard disk 2', 500, 'vsan', { usedBytes: 150 * GiB }),
      disk('Hard disk 3', 50),
    ];
    expect(migrationDatastoreNeed({ disks: d }, 'nfs-migration')).toBe(200 * GiB);
    const placement = placeWave({
      ...cluster([vm('a', { disks: d })], { storages: [local('local-lvm', { pve1: 2000 })] }),
      migrationDatastore: datastore,
    });
    expect(placement.ok).toBe(true);
    expect(placement.migrationDatastore!.needBytes).toBe(200 * GiB);
  });

  it('refuses a VM for the datastore and a node at once, listing both', () => {
    const placement = placeWave({
      ...cluster(
        [vm('a', { memoryBytes: 100 * GiB, disks: [disk('Hard disk 1', 300)] })],
        { nodes: [node('pve1')] },
        { partial: true },
      ),
      migrationDatastore: datastore,
    });
    expect(refusalsOf(placement, 'a').map((r) => r.code)).toEqual([
      'placement-memory',
      'placement-migration-datastore',
    ]);
  });
});

describe('placeWave: determinism', () => {
  const vms = [
    vm('db-01', {
      tags: ['tier/gold', 'app/db'],
      memoryBytes: 16 * GiB,
      disks: [disk('Hard disk 1', 100, 'ssd-01'), disk('Hard disk 2', 200)],
    }),
    vm('db-02', { tags: ['tier/gold', 'app/db'], memoryBytes: 16 * GiB, disks: [disk('Hard disk 1', 100, 'ssd-01')] }),
    vm('web01', { tags: ['app/web'], folder: '/DC0/vm/web' }),
    vm('web02', { tags: ['app/web'], folder: '/DC0/vm/web' }),
    vm('web03', { tags: ['app/web'], folder: '/DC0/vm/web' }),
    vm('web04', { tags: ['app/web'], folder: '/DC0/vm/web' }),
    vm('batch', { memoryBytes: 8 * GiB }),
    vm('same', { moid: 'vm-2' }),
    vm('same', { moid: 'vm-1' }),
  ];
  const base: PlacementInput = {
    ...cluster(vms, {
      nodes: [
        node('pve1', { committedBytes: 12 * GiB }),
        node('pve2'),
        node('pve3', { committedBytes: 6 * GiB }),
        node('pve4', { online: false }),
      ],
    }),
    settings: {
      targetStorage: 'local-lvm',
      rules: [{ match: { tag: 'tier/gold' }, nodes: ['pve2', 'pve3'] }],
      antiAffinity: [{ tag: 'app/db' }, { name: 'web*' }],
      storageMap: [{ datastore: 'ssd-*', storage: 'nfs-images' }],
      maxMemoryCommit: 1.5,
    },
    migrationDatastore: { name: 'nfs-migration', capacityBytes: 2000 * GiB, freeBytes: 1500 * GiB },
  };

  const reorder = (input: PlacementInput, turn: number): PlacementInput => {
    const rotate = <T>(items: readonly T[]) =>
      [...items.slice(turn % items.length), ...items.slice(0, turn % items.length)].reverse();
    return {
      ...input,
      vms: rotate(input.vms).map((v) => ({ ...v, tags: [...v.tags].reverse() })),
      nodes: rotate(input.nodes),
      storages: rotate(input.storages).map((s) => ({ ...s, nodes: rotate(s.nodes) })),
    };
  };

  it('gives the same placement for the same facts in any order', () => {
    const expected = placeWave(base);
    expect(expected.ok).toBe(true);
    for (let turn = 1; turn <= 9; turn += 1) expect(placeWave(reorder(base, turn))).toEqual(expected);
  });

  it('gives the same placement twice, and does not change its input', () => {
    const copy = structuredClone(base);
    expect(placeWave(base)).toEqual(placeWave(base));
    expect(base).toEqual(copy);
  });

  it('lists VMs with the same name by moid', () => {
    expect(
      placeWave(base)
        .placed.filter((p) => p.name === 'same')
        .map((p) => p.moid),
    ).toEqual(['vm-1', 'vm-2']);
  });

  it('places in a documented order: pinned, memory, disk, name, moid', () => {
    const order = placementOrder(
      [
        vm('b'),
        vm('a'),
        vm('big-disk', { disks: [disk('d', 500)] }),
        vm('big-mem', { memoryBytes: 8 * GiB }),
        vm('pinned'),
        vm('a', { moid: 'vm-0' }),
      ],
      (v) => v.name === 'pinned',
    );
    expect(order.map((v) => `${v.name}:${v.moid}`)).toEqual([
      'pinned:vm-pinned',
      'big-mem:vm-big-mem',
      'big-disk:vm-big-disk',
      'a:vm-0',
      'a:vm-a',
      'b:vm-b',
    ]);
  });
});
