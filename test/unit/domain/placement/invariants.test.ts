import {
  placeWave,
  vmMatches,
  type PlacementInput,
  type PlacementStorage,
  type PlacementVm,
} from '../../../../src/domain/placement';
import { seededRandom as generator } from '../../../../lab/proxmox-sim/prng';
import { GiB, node } from './fixtures';

function randomWave(seed: number): PlacementInput {
  const random = generator(seed);
  const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)]!;
  const names = ['pve1', 'pve2', 'pve3', 'pve4', 'pve5'].slice(0, int(1, 5));
  const nodes = names.map((name) =>
    node(name, {
      online: random() > 0.15,
      memoryBytes: int(16, 128) * GiB,
      committedBytes: int(0, 100) * GiB,
      cpus: pick([8, 16, 32]),
    }),
  );
  const storages: PlacementStorage[] = [
    {
      name: 'local-lvm',
      shared: false,
      content: ['images'],
      nodes: names.map((n) => ({ node: n, totalBytes: 2000 * GiB, availBytes: int(0, 600) * GiB })),
    },
    {
      name: 'nfs-images',
      shared: true,
      content: ['images'],
      nodes: names
        .filter(() => random() > 0.3)
        .map((n) => ({ node: n, totalBytes: 4000 * GiB, availBytes: 800 * GiB })),
    },
  ];
  const vms: PlacementVm[] = Array.from({ length: int(0, 14) }, (_, i) => ({
    moid: `vm-${i}`,
    name: `${pick(['web', 'db', 'app'])}${int(0, 9)}`,
    folder: pick(['/DC0/vm/web', '/DC0/vm/db', '/DC0/vm']),
    tags: random() > 0.5 ? ['app/web'] : [],
    memoryBytes: int(0, 48) * GiB,
    cpus: pick([1, 2, 4, 16]),
    disks: Array.from({ length: int(0, 3) }, (_, d) => ({
      label: `Hard disk ${d + 1}`,
      datastore: pick(['vsan', 'ssd-01', 'nfs-migration']),
      capacityBytes: int(0, 200) * GiB,
    })),
  }));
  return {
    nodes,
    storages,
    vms,
    settings: {
      targetStorage: 'local-lvm',
      nodes: random() > 0.7 ? names.slice(0, -1) : undefined,
      rules: random() > 0.5 ? [{ match: { folder: '/DC0/vm/db' }, nodes: [pick(names)] }] : [],
      maxMemoryCommit: pick([1, 1.5]),
      antiAffinity: random() > 0.5 ? [{ tag: 'app/web' }] : [],
      storageMap: [{ datastore: 'ssd-*', storage: 'nfs-images' }],
      partial: random() > 0.5,
      migrationHeadroom: 0.1,
    },
    migrationDatastore: { name: 'nfs-migration', capacityBytes: 3000 * GiB, freeBytes: int(500, 2000) * GiB },
  };
}

describe('placeWave invariants over 400 generated waves', () => {
  const seeds = Array.from({ length: 400 }, (_, i) => i + 1);

  it.each(seeds.map((s) => [s]))('wave %i', (seed) => {
    const input = randomWave(seed);
    const placement = placeWave(input);
    const nodes = new Map(input.nodes.map((n) => [n.name, n]));

    // Every VM is placed or refused, once.
    expect([...placement.placed, ...placement.refused].map((v) => v.moid).sort()).toEqual(
      input.vms.map((v) => v.moid).sort(),
    );
    expect(placement.ok).toBe(placement.refused.length === 0 && placement.waveRefusals.length === 0);
    for (const refused of placement.refused) expect(refused.refusals.length).toBeGreaterThan(0);
    // Not partial: all or nothing.
    if (!input.settings.partial) expect(placement.placed.length === 0 || placement.refused.length === 0).toBe(true);

    for (const placed of placement.placed) {
      const vm = input.vms.find((v) => v.moid === placed.moid)!;
      const target = nodes.get(placed.node)!;
      expect(target.online).toBe(true);
      if (input.settings.nodes) expect(input.settings.nodes).toContain(placed.node);
      expect(vm.cpus).toBeLessThanOrEqual(target.cpus);
      const rule = input.settings.rules!.find((r) => vmMatches(r.match, vm));
      if (rule) expect(rule.nodes).toContain(placed.node);
      for (const d of placed.disks) {
        expect(input.storages.find((s) => s.name === d.storage)!.nodes.map((n) => n.node)).toContain(placed.node);
      }
    }
    // No limit broken by this wave.
    for (const totals of placement.nodes)
      if (totals.vms.length > 0) expect(totals.committedAfterBytes).toBeLessThanOrEqual(totals.limitBytes);
    for (const totals of placement.storages)
      if (totals.placedBytes > 0) expect(totals.availAfterBytes).toBeGreaterThanOrEqual(0);
    const md = placement.migrationDatastore!;
    if (md.placedBytes > 0) expect(md.placedBytes).toBeLessThanOrEqual(md.roomBytes);
    // Anti-affinity: never more per node than an even spread allows.
    if (input.settings.antiAffinity!.length > 0) {
      const members = placement.placed.filter((p) =>
        input.vms.find((v) => v.moid === p.moid)!.tags.includes('app/web'),
      );
      const all = input.vms.filter((v) => v.tags.includes('app/web')).length;
      const usable = placement.nodes.filter((n) => n.usable).map((n) => n.node);
      const reachable = new Set(
        input.vms
          .filter((v) => v.tags.includes('app/web'))
          .flatMap((v) => {
            const rule = input.settings.rules!.find((r) => vmMatches(r.match, v));
            return rule ? rule.nodes.filter((n) => usable.includes(n)) : usable;
          }),
      );
      const cap = Math.max(1, Math.ceil(all / reachable.size));
      const perNode = new Map<string, number>();
      for (const m of members) perNode.set(m.node, (perNode.get(m.node) ?? 0) + 1);
      for (const count of perNode.values()) expect(count).toBeLessThanOrEqual(cap);
      if (all <= reachable.size) for (const count of perNode.values()) expect(count).toBe(1);
    }
    // The same facts in another order give the same answer.
    const reversed: PlacementInput = {
      ...input,
      vms: [...input.vms].reverse(),
      nodes: [...input.nodes].reverse(),
      storages: [...input.storages].reverse().map((s) => ({ ...s, nodes: [...s.nodes].reverse() })),
    };
    expect(placeWave(reversed)).toEqual(placement);
  });

  it('places and refuses a fair share of the generated VMs (the generator is not trivial)', () => {
    let placed = 0;
    let refused = 0;
    for (const seed of seeds) {
      const p = placeWave(randomWave(seed));
      placed += p.placed.length;
      refused += p.refused.length;
    }
    expect(placed).toBeGreaterThan(200);
    expect(refused).toBeGreaterThan(200);
  });
});
