import { compareCodeUnits } from '../order';
import { groupLabel, noNodeRefusal, pinReason, pinUnusableRefusal } from './explain';
import type { PlacementRequest } from './fit';
import type { PlacementLedger, SpreadGroup } from './ledger';
import { describeMatch, globMatches, vmMatches } from './match';
import type {
  AntiAffinityGroup,
  PlacedDisk,
  PlacementDisk,
  PlacementNode,
  PlacementRefusal,
  PlacementRule,
  PlacementVm,
  StorageMapEntry,
} from './types';

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

/** Each of the VM's disks on the storage storageFor picks. */
export function chooseStorages(
  vm: Pick<PlacementVm, 'disks'>,
  storageMap: readonly StorageMapEntry[],
  targetStorage: string,
): PlacedDisk[] {
  return vm.disks.map((disk) => {
    const target = storageFor(disk, storageMap, targetStorage);
    return {
      label: disk.label,
      datastore: disk.datastore,
      storage: target.storage,
      capacityBytes: disk.capacityBytes,
      storageBy: target.by,
    };
  });
}

/** The nodes a wave may use: online, and in `migration.nodes` when it is set. */
export interface UsableNodes {
  /** `migration.nodes`, each once, in name order; undefined when not set. */
  listed?: string[];
  names: string[];
  /** How a VM's reasons name them: `any online node (pve1, pve2)`. */
  text: string;
  /** The listed nodes that are offline or not in the cluster. */
  notes: string[];
}

/** `nodes` in name order; `nodeByName` over them. */
export function usableNodes(
  nodes: readonly PlacementNode[],
  nodeByName: ReadonlyMap<string, PlacementNode>,
  setting: readonly string[] | undefined,
): UsableNodes {
  const listed = setting === undefined ? undefined : [...new Set(setting)].sort(compareCodeUnits);
  const notes: string[] = [];
  for (const name of listed ?? []) {
    const node = nodeByName.get(name);
    if (!node) notes.push(`migration.nodes names ${name}, which is not a node of the cluster`);
    else if (!node.online) notes.push(`${name} is offline: nothing is placed there`);
  }
  const names = nodes.filter((n) => n.online && (listed === undefined || listed.includes(n.name))).map((n) => n.name);
  const text =
    listed === undefined
      ? `any online node (${names.join(', ')})`
      : `any node of migration.nodes (${names.join(', ')})`;
  return { ...(listed !== undefined ? { listed } : {}), names, text, notes };
}

/** The nodes one VM may go to, and why; a refusal when there is none. */
export interface AllowedNodes {
  nodes: string[];
  /** The first of PlacedVm.reasons: the pin, or the usable nodes. */
  reason: string;
  /** A placement rule decided the nodes. */
  pinned: boolean;
  refusal?: PlacementRefusal;
}

/** The first placement rule that matches the VM pins it to the usable ones of its nodes; else every usable node. */
export function allowedNodes(
  vm: Pick<PlacementVm, 'name' | 'folder' | 'tags'>,
  rules: readonly PlacementRule[],
  usable: UsableNodes,
  nodeByName: ReadonlyMap<string, PlacementNode>,
): AllowedNodes {
  const index = rules.findIndex((rule) => vmMatches(rule.match, vm));
  const rule = rules[index];
  if (rule) return pinnedNodes(vm.name, rule, index, usable, nodeByName);
  const refusal = usable.names.length === 0 ? noNodeRefusal(vm.name, usable.listed) : undefined;
  return { nodes: usable.names, reason: usable.text, pinned: false, ...(refusal ? { refusal } : {}) };
}

function pinnedNodes(
  vmName: string,
  rule: PlacementRule,
  index: number,
  usable: UsableNodes,
  nodeByName: ReadonlyMap<string, PlacementNode>,
): AllowedNodes {
  const named = [...new Set(rule.nodes)].sort(compareCodeUnits);
  const why: string[] = [];
  const ok: string[] = [];
  for (const name of named) {
    const problem = pinProblem(name, nodeByName.get(name), usable.listed);
    if (problem) why.push(problem);
    else ok.push(name);
  }
  const ruleText = `placement rule ${index + 1} (${describeMatch(rule.match)})`;
  const refusal = ok.length === 0 ? pinUnusableRefusal(vmName, ruleText, named, why) : undefined;
  return { nodes: ok, reason: pinReason(ruleText, named, why, ok), pinned: true, ...(refusal ? { refusal } : {}) };
}

function pinProblem(
  name: string,
  node: PlacementNode | undefined,
  listed: readonly string[] | undefined,
): string | undefined {
  if (!node) return `${name} is not a node of the cluster`;
  if (!node.online) return `${name} is offline`;
  if (listed !== undefined && !listed.includes(name)) return `${name} is not in migration.nodes`;
  return undefined;
}

/**
 * The wave's anti-affinity groups: at most one member per node while there are enough nodes its
 * members may go to, else ⌈members / nodes⌉ per node, spread as evenly as possible (noted).
 */
export function spreadGroups(
  groups: readonly AntiAffinityGroup[],
  vms: readonly PlacementVm[],
  allowed: ReadonlyMap<string, Pick<AllowedNodes, 'nodes'>>,
): { groups: SpreadGroup[]; notes: string[] } {
  const notes: string[] = [];
  const spread = groups.map((group, index): SpreadGroup => {
    const members = vms.filter((vm) => vmMatches(group, vm));
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
  return { groups: spread, notes };
}

/**
 * Of the nodes the VM fits on: the fewest members of its anti-affinity groups, then the lowest memory
 * commitment after placing it (a share of the node's memory), then the name.
 */
export function chooseNode(
  fits: readonly string[],
  request: Pick<PlacementRequest, 'vm' | 'groups'>,
  ledger: Pick<PlacementLedger, 'membersOn' | 'committedOn'>,
  nodeByName: ReadonlyMap<string, PlacementNode>,
): string {
  const spread = (name: string) => request.groups.reduce((sum, g) => sum + ledger.membersOn(g, name), 0);
  const load = (name: string) => {
    const node = nodeByName.get(name)!;
    return node.memoryBytes > 0
      ? (ledger.committedOn(name) + request.vm.memoryBytes) / node.memoryBytes
      : Number.POSITIVE_INFINITY;
  };
  return [...fits].sort((a, b) => spread(a) - spread(b) || load(a) - load(b) || compareCodeUnits(a, b))[0]!;
}
