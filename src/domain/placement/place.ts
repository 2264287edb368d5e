import { compareCodeUnits } from '../order';
import { memoryLimit } from './capacity';
import {
  allowedNodes,
  chooseNode,
  chooseStorages,
  spreadGroups,
  usableNodes,
  type AllowedNodes,
  type UsableNodes,
} from './choose';
import { choiceReasons, distinct, waveRefusedRefusal } from './explain';
import {
  fitOnDatastore,
  fitOnNode,
  fitWaveOnDatastore,
  storageKindProblems,
  storageNeeds,
  type PlacementRequest,
} from './fit';
import { datastoreBudget, migrationDatastoreNeed, PlacementLedger, type SpreadGroup } from './ledger';
import { datastoreTotals, nodeTotals, storageTotals } from './totals';
import type {
  PlacedVm,
  Placement,
  PlacementInput,
  PlacementNode,
  PlacementRefusal,
  PlacementSettings,
  PlacementStorage,
  PlacementVm,
  RefusedVm,
} from './types';

export const DEFAULT_MAX_MEMORY_COMMIT = 1.0;
export const DEFAULT_MIGRATION_HEADROOM = 0.1;

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

/** The cluster in a fixed order (nodes and storages by name), so any input order places the same. */
interface Cluster {
  nodes: PlacementNode[];
  nodeByName: Map<string, PlacementNode>;
  storageByName: Map<string, PlacementStorage>;
}

/** What every VM of the wave is placed against, settled before the first is placed. */
interface Wave {
  settings: PlacementSettings;
  maxMemoryCommit: number;
  partial: boolean;
  cluster: Cluster;
  usable: UsableNodes;
  /** Per VM (by moid): the nodes it may go to. */
  allowed: Map<string, AllowedNodes>;
  /** Per VM (by moid): why it is refused before any node is weighed (no node, an unusable pin). */
  refusedEarly: Map<string, PlacementRefusal[]>;
  groups: SpreadGroup[];
  /** Refusals of the wave as a whole: the migration datastore, when not partial. */
  refusals: PlacementRefusal[];
  notes: string[];
  ledger: PlacementLedger;
}

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
  const wave = waveOf(input);
  const placed: PlacedVm[] = [];
  const refused: RefusedVm[] = [];
  for (const vm of placementOrder(input.vms, (vm) => wave.allowed.get(vm.moid)?.pinned ?? false)) {
    const outcome = placeVm(vm, wave);
    if ('node' in outcome) placed.push(outcome);
    else refused.push(outcome);
  }
  // Not partial: one VM that does not fit (or the datastore) refuses the wave whole.
  const refuseWhole = !wave.partial && (refused.length > 0 || wave.refusals.length > 0);
  if (refuseWhole) refused.push(...refuseWholeWave(placed, refused, wave.refusals));
  return placementOf(input, wave, refuseWhole ? [] : placed, refused);
}

/** The usable nodes, each VM's allowed nodes, the anti-affinity groups, the datastore budget, an empty ledger. */
function waveOf(input: PlacementInput): Wave {
  const { settings } = input;
  const partial = settings.partial ?? false;
  const cluster = clusterOf(input);
  const usable = usableNodes(cluster.nodes, cluster.nodeByName, settings.nodes);
  const { allowed, refusedEarly } = pinWave(input.vms, settings, usable, cluster);
  const spread = spreadGroups(settings.antiAffinity ?? [], input.vms, allowed);
  const headroom = settings.migrationHeadroom ?? DEFAULT_MIGRATION_HEADROOM;
  const budget = datastoreBudget(input.migrationDatastore, input.vms, headroom);
  return {
    settings,
    maxMemoryCommit: settings.maxMemoryCommit ?? DEFAULT_MAX_MEMORY_COMMIT,
    partial,
    cluster,
    usable,
    allowed,
    refusedEarly,
    groups: spread.groups,
    refusals: fitWaveOnDatastore(budget, partial),
    notes: [...usable.notes, ...spread.notes],
    ledger: new PlacementLedger(cluster.nodes, cluster.storageByName, budget),
  };
}

/** The result: `kept` are the VMs placed (none when the wave is refused whole), with the totals they make. */
function placementOf(input: PlacementInput, wave: Wave, kept: PlacedVm[], refused: RefusedVm[]): Placement {
  const budget = wave.ledger.datastore;
  return {
    ok: refused.length === 0 && wave.refusals.length === 0,
    placed: [...kept].sort(byName),
    refused: refused.sort(byName),
    waveRefusals: wave.refusals,
    nodes: nodeTotals(wave.cluster.nodes, kept, wave.maxMemoryCommit, wave.usable.names),
    storages: storageTotals([...wave.cluster.storageByName.values()], kept),
    migrationDatastore: budget && datastoreTotals(budget, kept, input.vms),
    notes: wave.notes,
  };
}

function clusterOf(input: Pick<PlacementInput, 'nodes' | 'storages'>): Cluster {
  const nodes = [...input.nodes].sort((a, b) => compareCodeUnits(a.name, b.name));
  const storages = [...input.storages].sort((a, b) => compareCodeUnits(a.name, b.name));
  return {
    nodes,
    nodeByName: new Map(nodes.map((n) => [n.name, n])),
    storageByName: new Map(storages.map((s) => [s.name, s])),
  };
}

/** Each VM's allowed nodes (pins: the first rule that matches decides), and the VMs that have none. */
function pinWave(
  vms: readonly PlacementVm[],
  settings: PlacementSettings,
  usable: UsableNodes,
  cluster: Cluster,
): Pick<Wave, 'allowed' | 'refusedEarly'> {
  const allowed = new Map<string, AllowedNodes>();
  const refusedEarly = new Map<string, PlacementRefusal[]>();
  for (const vm of vms) {
    const allow = allowedNodes(vm, settings.rules ?? [], usable, cluster.nodeByName);
    if (allow.refusal) refusedEarly.set(vm.moid, [allow.refusal]);
    allowed.set(vm.moid, allow);
  }
  return { allowed, refusedEarly };
}

/** One VM, against the ledger as the VMs before it left it: placed (and booked), or refused. */
function placeVm(vm: PlacementVm, wave: Wave): PlacedVm | RefusedVm {
  const early = wave.refusedEarly.get(vm.moid);
  if (early) return { moid: vm.moid, name: vm.name, refusals: early };
  const allow = wave.allowed.get(vm.moid)!;
  const request = requestOf(vm, wave);
  const fixed = storageKindProblems(request, wave.cluster.storageByName);
  if (fixed.length > 0) return { moid: vm.moid, name: vm.name, refusals: fixed };

  const verdicts = allow.nodes.map((name) => ({
    node: name,
    refusals: fitOnNode(
      request,
      wave.cluster.nodeByName.get(name)!,
      wave.ledger,
      wave.maxMemoryCommit,
      wave.cluster.storageByName,
    ),
  }));
  const fits = verdicts.filter((v) => v.refusals.length === 0).map((v) => v.node);
  const datastoreProblem = fitOnDatastore(request, wave.ledger, wave.partial);
  if (fits.length === 0 || datastoreProblem) {
    const nodeProblems = fits.length === 0 ? verdicts.flatMap((v) => v.refusals) : [];
    const refusals = distinct([...nodeProblems, ...(datastoreProblem ? [datastoreProblem] : [])]);
    return { moid: vm.moid, name: vm.name, refusals };
  }

  const chosen = chooseNode(fits, request, wave.ledger, wave.cluster.nodeByName);
  const reasons = choiceReasons({
    allowed: allow.reason,
    chosen,
    fits: fits.length,
    groups: request.groups.map((group) => ({ group, there: wave.ledger.membersOn(group, chosen) })),
    committedAfterBytes: wave.ledger.committedOn(chosen) + vm.memoryBytes,
    limitBytes: memoryLimit(wave.cluster.nodeByName.get(chosen)!, wave.maxMemoryCommit),
    verdicts,
  });
  wave.ledger.commit(chosen, { ...request, memoryBytes: vm.memoryBytes });
  return { moid: vm.moid, name: vm.name, node: chosen, memoryBytes: vm.memoryBytes, disks: request.disks, reasons };
}

/** The VM with its disks on their storages (storageMap, else targetStorage) and its anti-affinity groups. */
function requestOf(vm: PlacementVm, wave: Wave): PlacementRequest {
  const disks = chooseStorages(vm, wave.settings.storageMap ?? [], wave.settings.targetStorage);
  const datastore = wave.ledger.datastore?.datastore;
  return {
    vm,
    disks,
    needs: storageNeeds(disks),
    groups: wave.groups.filter((g) => g.members.has(vm.moid)),
    datastoreBytes: datastore ? migrationDatastoreNeed(vm, datastore.name) : 0,
  };
}

/** The VMs that fit, refused because the wave is refused whole. */
function refuseWholeWave(
  placed: readonly PlacedVm[],
  refused: readonly RefusedVm[],
  waveRefusals: readonly PlacementRefusal[],
): RefusedVm[] {
  const misfits = [...refused].sort(byName).map((r) => r.name);
  return placed.map((p) => ({
    moid: p.moid,
    name: p.name,
    refusals: [waveRefusedRefusal(p, misfits, waveRefusals)],
  }));
}

function byName(a: { name: string; moid: string }, b: { name: string; moid: string }): number {
  return compareCodeUnits(a.name, b.name) || compareCodeUnits(a.moid, b.moid);
}
