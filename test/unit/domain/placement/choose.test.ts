import {
  allowedNodes,
  chooseNode,
  chooseStorages,
  spreadGroups,
  usableNodes,
} from '../../../../src/domain/placement/choose';
import { PlacementLedger } from '../../../../src/domain/placement/ledger';
import type { PlacementNode } from '../../../../src/domain/placement';
import { disk, GiB, node, vm } from './fixtures';

const byName = (nodes: PlacementNode[]) => new Map(nodes.map((n) => [n.name, n]));
const cluster = [node('pve1'), node('pve2', { online: false }), node('pve3')];

describe('chooseStorages', () => {
  it('puts each disk on the first storageMap entry that matches, else on targetStorage, saying which', () => {
    const disks = chooseStorages(
      vm('a', { disks: [disk('Hard disk 1', 10, 'ssd-01'), disk('Hard disk 2', 20, 'vsan')] }),
      [
        { datastore: 'ssd-*', storage: 'fast' },
        { label: 'Hard disk 1', storage: 'never' },
      ],
      'local-lvm',
    );
    expect(disks).toEqual([
      {
        label: 'Hard disk 1',
        datastore: 'ssd-01',
        storage: 'fast',
        capacityBytes: 10 * GiB,
        storageBy: 'storageMap 1 (datastore ssd-*)',
      },
      {
        label: 'Hard disk 2',
        datastore: 'vsan',
        storage: 'local-lvm',
        capacityBytes: 20 * GiB,
        storageBy: 'targetStorage',
      },
    ]);
  });
});

describe('usableNodes', () => {
  it('without migration.nodes: every online node', () => {
    expect(usableNodes(cluster, byName(cluster), undefined)).toEqual({
      names: ['pve1', 'pve3'],
      text: 'any online node (pve1, pve3)',
      notes: [],
    });
  });

  it('with migration.nodes: the online ones it lists, noting the offline and unknown ones', () => {
    expect(usableNodes(cluster, byName(cluster), ['pve9', 'pve3', 'pve2', 'pve3'])).toEqual({
      listed: ['pve2', 'pve3', 'pve9'],
      names: ['pve3'],
      text: 'any node of migration.nodes (pve3)',
      notes: [
        'pve2 is offline: nothing is placed there',
        'migration.nodes names pve9, which is not a node of the cluster',
      ],
    });
  });
});

describe('allowedNodes', () => {
  const usable = usableNodes(cluster, byName(cluster), undefined);

  it('no rule matches: every usable node, not pinned', () => {
    const rules = [{ match: { name: 'db-*' }, nodes: ['pve3'] }];
    expect(allowedNodes(vm('web01'), rules, usable, byName(cluster))).toEqual({
      nodes: ['pve1', 'pve3'],
      reason: 'any online node (pve1, pve3)',
      pinned: false,
    });
  });

  it('no usable node at all: refused', () => {
    const none = usableNodes(cluster, byName(cluster), ['pve2']);
    expect(allowedNodes(vm('web01'), [], none, byName(cluster)).refusal).toEqual({
      code: 'placement-no-node',
      subject: 'web01',
      reason: 'no node of migration.nodes (pve2) is online and in the cluster',
    });
  });

  it('the first matching rule pins, keeping the usable nodes and saying why the others are not', () => {
    const rules = [
      { match: { name: 'web*' }, nodes: ['pve3', 'pve2', 'pve1', 'pve9'] },
      { match: {}, nodes: ['pve1'] },
    ];
    expect(allowedNodes(vm('web01'), rules, usable, byName(cluster))).toEqual({
      nodes: ['pve1', 'pve3'],
      reason:
        'pinned by placement rule 1 (name web*) to pve1, pve2, pve3, pve9 (pve2 is offline; pve9 is not a node of the cluster)',
      pinned: true,
    });
  });

  it('a pin to no usable node refuses the VM, naming each node’s problem', () => {
    const listed = usableNodes(cluster, byName(cluster), ['pve1']);
    const allow = allowedNodes(
      vm('db-01'),
      [{ match: { name: 'db-*' }, nodes: ['pve2', 'pve3'] }],
      listed,
      byName(cluster),
    );
    expect(allow).toMatchObject({ nodes: [], pinned: true });
    expect(allow.refusal).toEqual({
      code: 'placement-pin-unusable',
      subject: 'db-01',
      resource: 'pve2, pve3',
      reason:
        'db-01 is pinned by placement rule 1 (name db-*) to pve2, pve3, and none can take it: pve2 is offline; pve3 is not in migration.nodes',
    });
  });
});

describe('spreadGroups', () => {
  const vms = [vm('web1'), vm('web2'), vm('web3'), vm('db1')];
  const allowed = (nodes: string[]) => new Map(vms.map((v) => [v.moid, { nodes }]));

  it('one member per node while there are enough nodes', () => {
    const { groups, notes } = spreadGroups([{ name: 'web*' }], vms, allowed(['pve1', 'pve2', 'pve3']));
    expect(groups).toEqual([
      {
        index: 0,
        label: 'anti-affinity group 1 (name web*)',
        members: new Set(['vm-web1', 'vm-web2', 'vm-web3']),
        cap: 1,
      },
    ]);
    expect(notes).toEqual([]);
  });

  it('more members than nodes: ⌈members / nodes⌉ per node, noted', () => {
    const { groups, notes } = spreadGroups([{ name: 'db*' }, { name: 'web*' }], vms, allowed(['pve1', 'pve2']));
    expect(groups.map((g) => [g.label, g.cap])).toEqual([
      ['anti-affinity group 1 (name db*)', 1],
      ['anti-affinity group 2 (name web*)', 2],
    ]);
    expect(notes).toEqual([
      'anti-affinity group 2 (name web*) has 3 VMs for 2 nodes: at most 2 per node, spread as evenly as possible',
    ]);
  });

  it('members with no node to go to: the cap is the group’s size (their pins refuse them, not the group)', () => {
    expect(spreadGroups([{ name: 'web*' }], vms, allowed([])).groups[0]!.cap).toBe(3);
  });
});

describe('chooseNode', () => {
  const nodes = [
    node('pve1', { memoryBytes: 64 * GiB, committedBytes: 8 * GiB }),
    node('pve2', { memoryBytes: 64 * GiB, committedBytes: 8 * GiB }),
    node('pve3', { memoryBytes: 32 * GiB, committedBytes: 2 * GiB }),
  ];
  const group = { index: 0, label: 'g', members: new Set(['vm-a']), cap: 2 };

  it('least memory committed after placing, as a share of the node, then by name', () => {
    const ledger = new PlacementLedger(nodes, new Map());
    // pve1, pve2: 12/64 = 18.75 %; pve3: 6/32 = 18.75 %: the name decides.
    expect(chooseNode(['pve3', 'pve2', 'pve1'], { vm: vm('a'), groups: [] }, ledger, byName(nodes))).toBe('pve1');
    ledger.commit('pve1', { memoryBytes: 1, needs: [], groups: [], datastoreBytes: 0 });
    expect(chooseNode(['pve3', 'pve2', 'pve1'], { vm: vm('a'), groups: [] }, ledger, byName(nodes))).toBe('pve2');
  });

  it('the fewest members of its anti-affinity groups before the load', () => {
    const ledger = new PlacementLedger(nodes, new Map());
    ledger.commit('pve1', { memoryBytes: 0, needs: [], groups: [group], datastoreBytes: 0 });
    ledger.commit('pve3', { memoryBytes: 20 * GiB, needs: [], groups: [], datastoreBytes: 0 });
    expect(chooseNode(['pve1', 'pve3'], { vm: vm('a'), groups: [group] }, ledger, byName(nodes))).toBe('pve3');
    expect(chooseNode(['pve1', 'pve3'], { vm: vm('a'), groups: [] }, ledger, byName(nodes))).toBe('pve1');
  });

  it('a node that reports no memory comes last', () => {
    const odd = [node('pve0', { memoryBytes: 0 }), node('pve9', { committedBytes: 60 * GiB })];
    const ledger = new PlacementLedger(odd, new Map());
    expect(chooseNode(['pve0', 'pve9'], { vm: vm('a'), groups: [] }, ledger, byName(odd))).toBe('pve9');
  });
});
