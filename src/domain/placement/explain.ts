import { describeMatch } from './match';
import { formatBytes, needsAndFree } from './units';
import type { DatastoreBudget, SpreadGroup } from './ledger';
import type { AntiAffinityGroup, PlacementRefusal } from './types';

/**
 * The words of placement: its refusals with the numbers a person acts on, and the reasons a VM went
 * where it went. The capacity refusals shared with the cutover's re-check are in capacity.ts.
 */

export function groupLabel(group: AntiAffinityGroup, index: number): string {
  return `anti-affinity group ${index + 1} (${describeMatch(group)})`;
}

/** 1st, 2nd, 3rd, 4th, …, 11th, 12th, 13th, …, 21st. */
export function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** No node at all: none online, or `migration.nodes` (when set) names none that is. */
export function noNodeRefusal(vmName: string, listed: readonly string[] | undefined): PlacementRefusal {
  return {
    code: 'placement-no-node',
    subject: vmName,
    reason:
      listed === undefined
        ? `no Proxmox node is online to place ${vmName} on`
        : `no node of migration.nodes (${listed.join(', ') || 'none'}) is online and in the cluster`,
  };
}

/** A pin whose every node is unknown, offline or outside `migration.nodes` (`why` says which). */
export function pinUnusableRefusal(
  vmName: string,
  ruleText: string,
  named: readonly string[],
  why: readonly string[],
): PlacementRefusal {
  return {
    code: 'placement-pin-unusable',
    subject: vmName,
    resource: named.join(', '),
    reason: `${vmName} is pinned by ${ruleText} to ${named.join(', ') || 'no node'}, and none can take it${why.length ? `: ${why.join('; ')}` : ''}`,
  };
}

/** `pinned by placement rule 1 (folder /DC0/vm/db) to pve2, pve3 (pve3 is offline)`. */
export function pinReason(
  ruleText: string,
  named: readonly string[],
  why: readonly string[],
  usable: readonly string[],
): string {
  return `pinned by ${ruleText} to ${named.join(', ')}${why.length && usable.length ? ` (${why.join('; ')})` : ''}`;
}

/** The node holds `there` of the group's VMs already, as many as it may. */
export function antiAffinityRefusal(vmName: string, group: SpreadGroup, node: string, there: number): PlacementRefusal {
  return {
    code: 'placement-anti-affinity',
    subject: vmName,
    resource: `${group.label} on ${node}`,
    need: there + 1,
    room: group.cap,
    reason: `${group.label}: ${node} already holds ${there} of its VMs (at most ${group.cap} per node)`,
  };
}

function headroomText(budget: DatastoreBudget): string {
  return `${Math.round(budget.headroom * 100)}% (${formatBytes(budget.headroomBytes, 'up')}) kept as headroom`;
}

/** Not partial: every disk of the wave does not fit on the migration datastore. */
export function waveDatastoreRefusal(budget: DatastoreBudget): PlacementRefusal {
  const { datastore, needBytes, roomBytes } = budget;
  const resource = `migration datastore ${datastore.name}`;
  return {
    code: 'placement-migration-datastore',
    subject: datastore.name,
    resource,
    need: needBytes,
    room: Math.max(0, roomBytes),
    reason: `${resource}: ${needsAndFree(needBytes, roomBytes)} for every disk of the wave (${formatBytes(datastore.freeBytes, 'down')} free, ${headroomText(budget)})`,
  };
}

/** Partial: this VM's disks do not fit in what the wave's VMs placed before it left of the datastore. */
export function vmDatastoreRefusal(
  vmName: string,
  budget: DatastoreBudget,
  placedBytes: number,
  needBytes: number,
): PlacementRefusal {
  const room = Math.max(0, budget.roomBytes - placedBytes);
  const resource = `migration datastore ${budget.datastore.name}`;
  const wave = placedBytes > 0 ? ` after ${formatBytes(placedBytes, 'up')} for this wave's other VMs` : '';
  return {
    code: 'placement-migration-datastore',
    subject: vmName,
    resource,
    need: needBytes,
    room,
    reason: `${resource}: ${needsAndFree(needBytes, room)}${wave} (${headroomText(budget)})`,
  };
}

/** Shared storage refuses the same way from every node: say it once. */
export function distinct(refusals: readonly PlacementRefusal[]): PlacementRefusal[] {
  const seen = new Set<string>();
  return refusals.filter((r) => {
    const key = `${r.code} ${r.reason}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Why a node was chosen, as PlacedVm.reasons tells it. */
export interface ChoiceFacts {
  /** The pin, or the usable nodes: AllowedNodes.reason. */
  allowed: string;
  chosen: string;
  /** How many allowed nodes it fits on. */
  fits: number;
  /** Each of its anti-affinity groups with how many of the group the chosen node held before it. */
  groups: ReadonlyArray<{ group: SpreadGroup; there: number }>;
  committedAfterBytes: number;
  limitBytes: number;
  /** Every allowed node, with why the VM does not fit there (empty where it fits). */
  verdicts: ReadonlyArray<{ node: string; refusals: readonly PlacementRefusal[] }>;
}

/** The pin, the anti-affinity spread, the load, and why other nodes were passed over. */
export function choiceReasons(facts: ChoiceFacts): string[] {
  const { chosen } = facts;
  const after = formatBytes(facts.committedAfterBytes, 'up');
  const limit = formatBytes(facts.limitBytes, 'down');
  return [
    facts.allowed,
    ...facts.groups.map(
      ({ group, there }) =>
        `${group.label}: the ${ordinal(there + 1)} of its ${group.members.size} VMs on ${chosen} (at most ${group.cap} per node)`,
    ),
    facts.fits === 1
      ? `${chosen}: the only allowed node it fits on (${after} of ${limit} memory committed after)`
      : `${chosen}: ${facts.groups.length > 0 ? 'fewest of its anti-affinity groups, then ' : ''}least memory committed after placing (${after} of ${limit})`,
    ...facts.verdicts.flatMap(({ node, refusals }) => refusals.map((problem) => `not ${node}: ${problem.reason}`)),
  ];
}

/** Not partial: the VMs that fit are refused too, saying which did not and why. */
export function waveRefusedRefusal(
  vm: { name: string; node: string },
  misfits: readonly string[],
  waveRefusals: readonly PlacementRefusal[],
): PlacementRefusal {
  const because = [
    misfits.length > 0 ? `${misfits.join(', ')} ${misfits.length === 1 ? 'does' : 'do'} not fit` : '',
    ...waveRefusals.map((r) => r.reason),
  ]
    .filter(Boolean)
    .join('; ');
  return {
    code: 'placement-wave-refused',
    subject: vm.name,
    reason: `${vm.name} fits on ${vm.node}, but the wave is refused whole: ${because}; set partial to migrate the VMs that fit`,
  };
}
