import { compareCodeUnits } from '../order';
import {
  cpuRefusal,
  memoryLimit,
  memoryRefusal,
  roomKey,
  storageAvail,
  storageKindRefusal,
  storageRefusal,
} from './capacity';
import { describeMatch, globMatches, vmMatches } from './match';
import { formatBytes, needsAndFree } from './units';
import type {
  AntiAffinityGroup,
  NodeTotals,
  PlacedDisk,
  PlacedVm,
  Placement,
  PlacementDisk,
  PlacementInput,
  PlacementNode,
  PlacementRefusal,
  PlacementStorage,
  PlacementVm,
  RefusedVm,
  StorageMapEntry,
  StorageTotals,
} from './types';

export const DEFAULT_MAX_MEMORY_COMMIT = 1.0;
export const DEFAULT_MIGRATION_HEADROOM = 0.1;

/** The storage a disk is imported onto: the first storageMap entry that matches, else targetStorage. */
export function storageFor(
  disk: Pick<PlacementDisk, 'label' | 'datastore'>,
  storageMap: readonly StorageMapEntry[],
  targetStorage: string,
): { storage: string; by: string } {
  const index = storageMap.findIndex(
    (entry) =>
      (entry.datastore === undefined || globMatches(entry.datastore, disk.datastore)) &&
      (entry.label === undefined || globMatches(entry.label, disk.label)),
  );
  const entry = storageMap[index];
  if (!entry) return { storage: targetStorage, by: 'targetStorage' };
  const what = [
    entry.datastore !== undefined ? `datastore ${entry.datastore}` : '',
    entry.label !== undefined ? `label ${entry.label}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return { storage: entry.storage, by: `storageMap ${index + 1} (${what || 'every disk'})` };
}

/** What storage vMotion copies onto the migration datastore for this VM: every disk not there yet. */
export function migrationDatastoreNeed(vm: Pick<PlacementVm, 'disks'>, datastore: string): number {
  return vm.disks
    .filter((d) => d.datastore !== datastore)
    .reduce((sum, d) => sum + (d.usedBytes ?? d.capacityBytes), 0);
}

/** The VMs' order of placement: pinned first, then the most memory, the most disk, then name and moid. */
export function placementOrder(vms: readonly PlacementVm[], pinned: (vm: PlacementVm) => boolean): PlacementVm[] {
  const diskBytes = (vm: PlacementVm) => vm.disks.reduce((sum, d) => sum + d.capacityBytes, 0);
  return [...vms].sort(
    (a, b) =>
      Number(pinned(b)) - Number(pinned(a)) ||
      b.memoryBytes - a.memoryBytes ||
      diskBytes(b) - diskBytes(a) ||
      compareCodeUnits(a.name, b.name) ||
      compareCodeUnits(a.moid, b.moid),
  );
}

interface StorageNeed {
  storage: string;
  bytes: number;
  labels: string[];
  by: string[];
}

/** Per storage, what a VM's disks need on it, in storage-name order. */
function storageNeeds(disks: readonly PlacedDisk[]): StorageNeed[] {
  const byStorage = new Map<string, StorageNeed>();
  for (const disk of disks) {
    const need = byStorage.get(disk.storage) ?? { storage: disk.storage, bytes: 0, labels: [], by: [] };
    need.bytes += disk.capacityBytes;
    need.labels.push(disk.label);
    if (!need.by.includes(disk.storageBy)) need.by.push(disk.storageBy);
    byStorage.set(disk.storage, need);
  }
  return [...byStorage.values()].sort((a, b) => compareCodeUnits(a.storage, b.storage));
}

interface Group {
  index: number;
  label: string;
  members: Set<string>;
  cap: number;
}

function groupLabel(group: AntiAffinityGroup, index: number): string {
  return `anti-affinity group ${index + 1} (${describeMatch(group)})`;
}

const ordinal = (n: number): string => {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
};

/**
 * Places a wave's VMs onto Proxmox nodes and their disks onto storages, or refuses them with numbers.
 *
 * Deterministic: nodes, storages and VMs are put in a fixed order first (VMs by `placementOrder`), so
 * the same facts in any order give the same placement, and `plan` and the wave agree. Greedy: each VM
 * in turn goes to the allowed node where it fits with the fewest members of its anti-affinity groups,
 * then the lowest memory commitment after placing it, then by name. Greedy is not an exhaustive search:
 * a wave it refuses might fit in some other arrangement, but never one that breaks a limit.
 */
export function placeWave(input: PlacementInput): Placement {
  const settings = input.settings;
  const ratio = settings.maxMemoryCommit ?? DEFAULT_MAX_MEMORY_COMMIT;
  const headroom = settings.migrationHeadroom ?? DEFAULT_MIGRATION_HEADROOM;
  const partial = settings.partial ?? false;
  const rules = settings.rules ?? [];
  const storageMap = settings.storageMap ?? [];
  const notes: string[] = [];

  const nodes = [...input.nodes].sort((a, b) => compareCodeUnits(a.name, b.name));
  const nodeByName = new Map(nodes.map((n) => [n.name, n]));
  const storageByName = new Map(
    [...input.storages].sort((a, b) => compareCodeUnits(a.name, b.name)).map((s) => [s.name, s]),
  );

  // The nodes the wave may use.
  const listed = settings.nodes === undefined ? undefined : [...new Set(settings.nodes)].sort(compareCodeUnits);
  for (const name of listed ?? []) {
    const node = nodeByName.get(name);
    if (!node) notes.push(`migration.nodes names ${name}, which is not a node of the cluster`);
    else if (!node.online) notes.push(`${name} is offline: nothing is placed there`);
  }
  const usable = nodes.filter((n) => n.online && (listed === undefined || listed.includes(n.name))).map((n) => n.name);
  const usableText =
    listed === undefined
      ? `any online node (${usable.join(', ')})`
      : `any node of migration.nodes (${usable.join(', ')})`;

  // Pins: the first rule that matches decides the nodes a VM may go to.
  const allowed = new Map<string, { nodes: string[]; reason: string; pinned: boolean }>();
  const refusedEarly = new Map<string, PlacementRefusal[]>();
  for (const vm of input.vms) {
    const index = rules.findIndex((rule) => vmMatches(rule.match, vm));
    const rule = rules[index];
    if (!rule) {
      if (usable.length === 0) {
        refusedEarly.set(vm.moid, [
          {
            code: 'placement-no-node',
            subject: vm.name,
            reason:
              listed === undefined
                ? `no Proxmox node is online to place ${vm.name} on`
                : `no node of migration.nodes (${listed.join(', ') || 'none'}) is online and in the cluster`,
          },
        ]);
      }
      allowed.set(vm.moid, { nodes: usable, reason: usableText, pinned: false });
      continue;
    }
    const named = [...new Set(rule.nodes)].sort(compareCodeUnits);
    const why: string[] = [];
    const ok: string[] = [];
    for (const name of named) {
      const node = nodeByName.get(name);
      if (!node) why.push(`${name} is not a node of the cluster`);
      else if (!node.online) why.push(`${name} is offline`);
      else if (listed !== undefined && !listed.includes(name)) why.push(`${name} is not in migration.nodes`);
      else ok.push(name);
    }
    const ruleText = `placement rule ${index + 1} (${describeMatch(rule.match)})`;
    if (ok.length === 0) {
      refusedEarly.set(vm.moid, [
        {
          code: 'placement-pin-unusable',
          subject: vm.name,
          resource: named.join(', '),
          reason: `${vm.name} is pinned by ${ruleText} to ${named.join(', ') || 'no node'}, and none can take it${why.length ? `: ${why.join('; ')}` : ''}`,
        },
      ]);
    }
    const reason = `pinned by ${ruleText} to ${named.join(', ')}${why.length && ok.length ? ` (${why.join('; ')})` : ''}`;
    allowed.set(vm.moid, { nodes: ok, reason, pinned: true });
  }

  // Anti-affinity groups: at most one member per node while there are enough nodes, else as even as possible.
  const groups: Group[] = (settings.antiAffinity ?? []).map((group, index) => {
    const members = input.vms.filter((vm) => vmMatches(group, vm));
    const reachable = new Set(members.flatMap((vm) => allowed.get(vm.moid)?.nodes ?? []));
    const cap = reachable.size === 0 ? members.length : Math.max(1, Math.ceil(members.length / reachable.size));
    const label = groupLabel(group, index);
    if (members.length > reachable.size && reachable.size > 0) {
      notes.push(
        `${label} has ${members.length} VMs for ${reachable.size} nodes: at most ${cap} per node, spread as evenly as possible`,
      );
    }
    return { index, label, members: new Set(members.map((vm) => vm.moid)), cap };
  });
  const groupCount = new Map<string, number>();
  const countKey = (group: Group, node: string) => `${group.index} ${node}`;

  // Ledgers: memory per node, bytes per storage room (shared: once; local: per node).
  const committed = new Map(nodes.map((n) => [n.name, n.committedBytes]));
  const memoryByWave = new Map<string, number>();
  const taken = new Map<string, number>();

  const datastore = input.migrationDatastore;
  const headroomBytes = datastore ? Math.ceil(datastore.capacityBytes * headroom) : 0;
  const datastoreRoom = datastore ? datastore.freeBytes - headroomBytes : 0;
  const datastoreNeed = datastore
    ? input.vms.reduce((sum, vm) => sum + migrationDatastoreNeed(vm, datastore.name), 0)
    : 0;
  let datastorePlaced = 0;
  const waveRefusals: PlacementRefusal[] = [];
  const headroomText = datastore
    ? `${Math.round(headroom * 100)}% (${formatBytes(headroomBytes, 'up')}) kept as headroom`
    : '';
  if (datastore && !partial && datastoreNeed > 0 && datastoreNeed > datastoreRoom) {
    const resource = `migration datastore ${datastore.name}`;
    waveRefusals.push({
      code: 'placement-migration-datastore',
      subject: datastore.name,
      resource,
      need: datastoreNeed,
      room: Math.max(0, datastoreRoom),
      reason: `${resource}: ${needsAndFree(datastoreNeed, datastoreRoom)} for every disk of the wave (${formatBytes(datastore.freeBytes, 'down')} free, ${headroomText})`,
    });
  }

  const placed: PlacedVm[] = [];
  const refused: RefusedVm[] = [];
  const order = placementOrder(input.vms, (vm) => allowed.get(vm.moid)?.pinned ?? false);

  for (const vm of order) {
    const early = refusedEarly.get(vm.moid);
    if (early) {
      refused.push({ moid: vm.moid, name: vm.name, refusals: early });
      continue;
    }
    const allow = allowed.get(vm.moid)!;
    const disks: PlacedDisk[] = vm.disks.map((disk) => {
      const target = storageFor(disk, storageMap, settings.targetStorage);
      return {
        label: disk.label,
        datastore: disk.datastore,
        storage: target.storage,
        capacityBytes: disk.capacityBytes,
        storageBy: target.by,
      };
    });
    const needs = storageNeeds(disks);

    // Problems that no node choice changes: a storage that does not exist or holds no disks.
    const fixed = needs
      .map((need) => storageKindRefusal(vm.name, need.storage, storageByName.get(need.storage), need.labels, need.by))
      .filter((r): r is PlacementRefusal => r !== undefined);
    if (fixed.length > 0) {
      refused.push({ moid: vm.moid, name: vm.name, refusals: fixed });
      continue;
    }

    const vmGroups = groups.filter((g) => g.members.has(vm.moid));
    const problems = new Map<string, PlacementRefusal[]>();
    const fits: string[] = [];
    for (const name of allow.nodes) {
      const node = nodeByName.get(name)!;
      const found: PlacementRefusal[] = [];
      const cpu = cpuRefusal(vm.name, node, vm.cpus);
      if (cpu) found.push(cpu);
      const memory = memoryRefusal(
        vm.name,
        node,
        ratio,
        committed.get(name)!,
        vm.memoryBytes,
        memoryByWave.get(name) ?? 0,
      );
      if (memory) found.push(memory);
      for (const group of vmGroups) {
        const there = groupCount.get(countKey(group, name)) ?? 0;
        if (there + 1 > group.cap) {
          found.push({
            code: 'placement-anti-affinity',
            subject: vm.name,
            resource: `${group.label} on ${name}`,
            need: there + 1,
            room: group.cap,
            reason: `${group.label}: ${name} already holds ${there} of its VMs (at most ${group.cap} per node)`,
          });
        }
      }
      for (const need of needs) {
        const storage = storageByName.get(need.storage)!;
        const refusal = storageRefusal(
          vm.name,
          storage,
          name,
          need.bytes,
          taken.get(roomKey(storage, name)) ?? 0,
          need.labels,
        );
        if (refusal) found.push(refusal);
      }
      problems.set(name, found);
      if (found.length === 0) fits.push(name);
    }

    const datastoreNeedOfVm = datastore ? migrationDatastoreNeed(vm, datastore.name) : 0;
    const datastoreProblem: PlacementRefusal[] = [];
    if (datastore && partial && datastoreNeedOfVm > 0 && datastorePlaced + datastoreNeedOfVm > datastoreRoom) {
      const room = Math.max(0, datastoreRoom - datastorePlaced);
      const resource = `migration datastore ${datastore.name}`;
      const wave = datastorePlaced > 0 ? ` after ${formatBytes(datastorePlaced, 'up')} for this wave's other VMs` : '';
      datastoreProblem.push({
        code: 'placement-migration-datastore',
        subject: vm.name,
        resource,
        need: datastoreNeedOfVm,
        room,
        reason: `${resource}: ${needsAndFree(datastoreNeedOfVm, room)}${wave} (${headroomText})`,
      });
    }

    if (fits.length === 0 || datastoreProblem.length > 0) {
      const nodeProblems = fits.length === 0 ? allow.nodes.flatMap((name) => problems.get(name)!) : [];
      refused.push({ moid: vm.moid, name: vm.name, refusals: distinct([...nodeProblems, ...datastoreProblem]) });
      continue;
    }

    const spread = (name: string) => vmGroups.reduce((sum, g) => sum + (groupCount.get(countKey(g, name)) ?? 0), 0);
    const load = (name: string) => {
      const node = nodeByName.get(name)!;
      return node.memoryBytes > 0
        ? (committed.get(name)! + vm.memoryBytes) / node.memoryBytes
        : Number.POSITIVE_INFINITY;
    };
    const chosen = [...fits].sort((a, b) => spread(a) - spread(b) || load(a) - load(b) || compareCodeUnits(a, b))[0]!;
    const node = nodeByName.get(chosen)!;

    const reasons = [allow.reason];
    for (const group of vmGroups) {
      const there = (groupCount.get(countKey(group, chosen)) ?? 0) + 1;
      reasons.push(
        `${group.label}: the ${ordinal(there)} of its ${group.members.size} VMs on ${chosen} (at most ${group.cap} per node)`,
      );
    }
    const after = committed.get(chosen)! + vm.memoryBytes;
    const limit = memoryLimit(node, ratio);
    reasons.push(
      fits.length === 1
        ? `${chosen}: the only allowed node it fits on (${formatBytes(after, 'up')} of ${formatBytes(limit, 'down')} memory committed after)`
        : `${chosen}: ${vmGroups.length > 0 ? 'fewest of its anti-affinity groups, then ' : ''}least memory committed after placing (${formatBytes(after, 'up')} of ${formatBytes(limit, 'down')})`,
    );
    for (const name of allow.nodes) {
      for (const problem of problems.get(name)!) reasons.push(`not ${name}: ${problem.reason}`);
    }

    committed.set(chosen, after);
    memoryByWave.set(chosen, (memoryByWave.get(chosen) ?? 0) + vm.memoryBytes);
    for (const group of vmGroups)
      groupCount.set(countKey(group, chosen), (groupCount.get(countKey(group, chosen)) ?? 0) + 1);
    for (const need of needs) {
      const key = roomKey(storageByName.get(need.storage)!, chosen);
      taken.set(key, (taken.get(key) ?? 0) + need.bytes);
    }
    datastorePlaced += datastoreNeedOfVm;
    placed.push({ moid: vm.moid, name: vm.name, node: chosen, memoryBytes: vm.memoryBytes, disks, reasons });
  }

  // Not partial: one VM that does not fit (or the datastore) refuses the wave whole.
  const refuseWhole = !partial && (refused.length > 0 || waveRefusals.length > 0);
  if (refuseWhole) {
    const misfits = [...refused].sort(byName).map((r) => r.name);
    const because = [
      misfits.length > 0 ? `${misfits.join(', ')} ${misfits.length === 1 ? 'does' : 'do'} not fit` : '',
      ...waveRefusals.map((r) => r.reason),
    ]
      .filter(Boolean)
      .join('; ');
    for (const vm of placed) {
      refused.push({
        moid: vm.moid,
        name: vm.name,
        refusals: [
          {
            code: 'placement-wave-refused',
            subject: vm.name,
            reason: `${vm.name} fits on ${vm.node}, but the wave is refused whole: ${because}; set partial to migrate the VMs that fit`,
          },
        ],
      });
    }
  }
  const kept = refuseWhole ? [] : placed;

  return {
    ok: refused.length === 0 && waveRefusals.length === 0,
    placed: [...kept].sort(byName),
    refused: refused.sort(byName),
    waveRefusals,
    nodes: nodeTotals(nodes, kept, ratio, usable),
    storages: storageTotals([...storageByName.values()], kept),
    migrationDatastore: datastore && {
      name: datastore.name,
      capacityBytes: datastore.capacityBytes,
      freeBytes: datastore.freeBytes,
      headroomBytes,
      roomBytes: datastoreRoom,
      needBytes: datastoreNeed,
      placedBytes: kept.reduce(
        (sum, p) =>
          sum +
          migrationDatastoreNeed(
            input.vms.find((vm) => vm.moid === p.moid)!,
            datastore.name,
          ),
        0,
      ),
    },
    notes,
  };
}

/** Shared storage refuses the same way from every node: say it once. */
function distinct(refusals: readonly PlacementRefusal[]): PlacementRefusal[] {
  const seen = new Set<string>();
  return refusals.filter((r) => {
    const key = `${r.code} ${r.reason}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function byName(a: { name: string; moid: string }, b: { name: string; moid: string }): number {
  return compareCodeUnits(a.name, b.name) || compareCodeUnits(a.moid, b.moid);
}

function nodeTotals(
  nodes: readonly PlacementNode[],
  placed: readonly PlacedVm[],
  ratio: number,
  usable: readonly string[],
): NodeTotals[] {
  return nodes.map((node) => {
    const here = placed.filter((p) => p.node === node.name);
    return {
      node: node.name,
      online: node.online,
      usable: usable.includes(node.name),
      memoryBytes: node.memoryBytes,
      limitBytes: memoryLimit(node, ratio),
      committedBeforeBytes: node.committedBytes,
      committedAfterBytes: node.committedBytes + here.reduce((sum, p) => sum + p.memoryBytes, 0),
      vms: here.map((p) => p.name).sort(compareCodeUnits),
    };
  });
}

function storageTotals(storages: readonly PlacementStorage[], placed: readonly PlacedVm[]): StorageTotals[] {
  const rows: StorageTotals[] = [];
  for (const storage of storages) {
    const entries = storage.shared
      ? storage.nodes.slice(0, 1)
      : [...storage.nodes].sort((a, b) => compareCodeUnits(a.node, b.node));
    for (const entry of entries) {
      const availBeforeBytes = storageAvail(storage, entry.node)!;
      const placedBytes = placed
        .filter((p) => storage.shared || p.node === entry.node)
        .flatMap((p) => p.disks)
        .filter((d) => d.storage === storage.name)
        .reduce((sum, d) => sum + d.capacityBytes, 0);
      rows.push({
        storage: storage.name,
        node: storage.shared ? undefined : entry.node,
        shared: storage.shared,
        availBeforeBytes,
        placedBytes,
        availAfterBytes: availBeforeBytes - placedBytes,
      });
    }
  }
  return rows;
}
