import type { PortgroupRecord } from '../inventory';
import { sdnIdProblem } from './sdn-ids';
import { classifyPortgroup, describeRanges } from './vlan';
import { compareCodeUnits } from '../order';

/** Maps a network ferry cannot translate by itself (trunk, PVLAN, untagged, standard switch) to a VNet. */
export interface NetworkOverride {
  /** Portgroup or standard-switch network name, as vCenter shows it. */
  network: string;
  /** VNet to attach NICs to. */
  vnet: string;
  /** With a tag, ferry creates the VNet in its zone; without, the VNet must already exist. */
  tag?: number;
}

export interface VnetPlanOptions {
  /** The VLAN zone ferry creates and owns, e.g. `ferry`. */
  zone: string;
  /** The Linux bridge the zone runs on, e.g. `vmbr0`. */
  bridge: string;
  /** VNet ids are `<prefix><tag>`, e.g. `v100`. */
  vnetPrefix: string;
  overrides: NetworkOverride[];
}

export interface PlannedVnet {
  id: string;
  /** VLAN tag in the zone; undefined for an override VNet that must already exist. */
  tag?: number;
  /** Shown in the PVE UI: the portgroup name(s) it replaces. */
  alias: string;
  /** Portgroup / network names translated into this VNet. */
  sources: string[];
  /** ferry creates it (else it is expected to exist). */
  create: boolean;
}

export interface UntranslatedNetwork {
  network: string;
  reason: string;
}

export interface VnetPlan {
  zone: { id: string; bridge: string };
  vnets: PlannedVnet[];
  /** Portgroup key → VNet id, for distributed portgroups. */
  byPortgroupKey: Record<string, string>;
  /** Standard-switch network name → VNet id (only through overrides). */
  byNetworkName: Record<string, string>;
  untranslated: UntranslatedNetwork[];
}

export class VnetPlanError extends Error {
  constructor(readonly problems: string[]) {
    super(`network translation settings are invalid:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'VnetPlanError';
  }
}

const MAX_ALIAS = 256;

/**
 * Plans the VLAN zone and VNets a set of VMs needs: one VNet per access VLAN in use (portgroups on one
 * VLAN collapse into one VNet), overrides for what has no automatic translation, and the list of
 * networks left untranslated with the reason.
 */
export function planVnets(
  portgroups: readonly PortgroupRecord[],
  used: { portgroupKeys: ReadonlySet<string>; standardNetworks: ReadonlySet<string> },
  options: VnetPlanOptions,
): VnetPlan {
  const plan = new VnetPlanBuilder(settingsProblems(options));
  const overrides = new Map(options.overrides.map((o) => [o.network, o]));
  const usedPortgroups = portgroups
    .filter((pg) => used.portgroupKeys.has(pg.key))
    .sort((a, b) => compareCodeUnits(a.name, b.name));
  for (const pg of usedPortgroups) {
    const id = plan.add(pg.name, portgroupTranslation(pg, overrides.get(pg.name), options.vnetPrefix));
    if (id !== undefined) plan.byPortgroupKey[pg.key] = id;
  }
  for (const name of [...used.standardNetworks].sort()) {
    const id = plan.add(name, standardNetworkTranslation(overrides.get(name)));
    if (id !== undefined) plan.byNetworkName[name] = id;
  }
  return plan.finish(options);
}

/** The zone id, and each override's VNet id and tag. */
function settingsProblems(options: VnetPlanOptions): string[] {
  const problems: string[] = [];
  const zoneProblem = sdnIdProblem(options.zone);
  if (zoneProblem) problems.push(`zone id ${zoneProblem}`);
  for (const o of options.overrides) {
    const p = sdnIdProblem(o.vnet);
    if (p) problems.push(`override for "${o.network}": VNet id ${p}`);
    if (o.tag !== undefined && !validTag(o.tag))
      problems.push(`override for "${o.network}": tag ${o.tag} is not a VLAN id 1–4094`);
  }
  return problems;
}

/** What one network in use becomes: a VNet, nothing (with the reason), or a settings problem. */
export type NetworkTranslation =
  | { kind: 'vnet'; id: string; tag?: number; create: boolean }
  | { kind: 'untranslated'; reason: string }
  | { kind: 'invalid'; problem: string };

function overrideVnet(override: NetworkOverride): NetworkTranslation {
  return { kind: 'vnet', id: override.vnet, tag: override.tag, create: override.tag !== undefined };
}

/** A portgroup's override, else the VNet of its access VLAN; the other kinds need an override. */
export function portgroupTranslation(
  pg: PortgroupRecord,
  override: NetworkOverride | undefined,
  vnetPrefix: string,
): NetworkTranslation {
  if (override) return overrideVnet(override);
  const cls = classifyPortgroup(pg);
  switch (cls.kind) {
    case 'access': {
      const id = `${vnetPrefix}${cls.tag}`;
      const p = sdnIdProblem(id);
      if (p) return { kind: 'invalid', problem: `VNet id for VLAN ${cls.tag} with prefix "${vnetPrefix}": ${p}` };
      return { kind: 'vnet', id, tag: cls.tag, create: true };
    }
    case 'trunk':
      return {
        kind: 'untranslated',
        reason: `trunk portgroup carrying VLANs ${describeRanges(cls.ranges)}; a VLAN-zone VNet carries one tag: map it with an override to a VLAN-aware VNet`,
      };
    case 'pvlan':
      return {
        kind: 'untranslated',
        reason: `private VLAN ${cls.pvlanId} has no Proxmox SDN equivalent: map it with an override`,
      };
    case 'untagged':
      return { kind: 'untranslated', reason: 'untagged portgroup: map it with an override to a VNet' };
    case 'uplink':
      return {
        kind: 'untranslated',
        reason: 'uplink portgroup of the distributed switch; VM NICs do not belong on it',
      };
  }
}

/** A standard-switch network has a VNet only through an override. */
export function standardNetworkTranslation(override: NetworkOverride | undefined): NetworkTranslation {
  if (override) return overrideVnet(override);
  return {
    kind: 'untranslated',
    reason:
      'standard-switch network: ferry translates distributed portgroups only; move the NIC to a distributed portgroup or map it with an override',
  };
}

/** The plan as networks are added, with every problem found on the way. */
class VnetPlanBuilder {
  readonly byPortgroupKey: Record<string, string> = {};
  readonly byNetworkName: Record<string, string> = {};
  private readonly vnets = new Map<string, PlannedVnet>();
  private readonly untranslated: UntranslatedNetwork[] = [];

  constructor(private readonly problems: string[]) {}

  /** The VNet id the network is attached to, or undefined (untranslated, or a problem). */
  add(network: string, translation: NetworkTranslation): string | undefined {
    switch (translation.kind) {
      case 'invalid':
        this.problems.push(translation.problem);
        return undefined;
      case 'untranslated':
        this.untranslated.push({ network, reason: translation.reason });
        return undefined;
      case 'vnet':
        this.addVnet(translation.id, translation.tag, network, translation.create);
        return translation.id;
    }
  }

  /** Networks translated to the same VNet share it, and must want it with the same tag. */
  private addVnet(id: string, tag: number | undefined, source: string, create: boolean): void {
    const existing = this.vnets.get(id);
    if (!existing) {
      this.vnets.set(id, { id, tag, alias: '', sources: [source], create });
      return;
    }
    if (existing.tag !== tag)
      this.problems.push(`VNet ${id} is wanted with tag ${existing.tag ?? '(existing)'} and ${tag ?? '(existing)'}`);
    if (!existing.sources.includes(source)) existing.sources.push(source);
  }

  /** Names each VNet after its sources and checks no two carry one VLAN; throws with every problem. */
  finish(options: VnetPlanOptions): VnetPlan {
    const tags = new Map<number, string>();
    for (const v of this.vnets.values()) {
      v.sources.sort();
      v.alias = v.sources.join(', ').slice(0, MAX_ALIAS);
      if (v.tag === undefined) continue;
      const other = tags.get(v.tag);
      if (other)
        this.problems.push(`VNets ${other} and ${v.id} would both carry VLAN ${v.tag} in zone ${options.zone}`);
      tags.set(v.tag, v.id);
    }
    if (this.problems.length > 0) throw new VnetPlanError(this.problems);
    return {
      zone: { id: options.zone, bridge: options.bridge },
      vnets: [...this.vnets.values()].sort((a, b) => compareCodeUnits(a.id, b.id)),
      byPortgroupKey: this.byPortgroupKey,
      byNetworkName: this.byNetworkName,
      untranslated: this.untranslated,
    };
  }
}

function validTag(tag: number): boolean {
  return Number.isInteger(tag) && tag >= 1 && tag <= 4094;
}
