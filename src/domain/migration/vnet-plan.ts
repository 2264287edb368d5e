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
  const problems: string[] = [];
  const zoneProblem = sdnIdProblem(options.zone);
  if (zoneProblem) problems.push(`zone id ${zoneProblem}`);
  const overrides = new Map(options.overrides.map((o) => [o.network, o]));
  for (const o of options.overrides) {
    const p = sdnIdProblem(o.vnet);
    if (p) problems.push(`override for "${o.network}": VNet id ${p}`);
    if (o.tag !== undefined && !validTag(o.tag))
      problems.push(`override for "${o.network}": tag ${o.tag} is not a VLAN id 1–4094`);
  }

  const vnets = new Map<string, PlannedVnet>();
  const byPortgroupKey: Record<string, string> = {};
  const byNetworkName: Record<string, string> = {};
  const untranslated: UntranslatedNetwork[] = [];

  const addVnet = (id: string, tag: number | undefined, source: string, create: boolean) => {
    const existing = vnets.get(id);
    if (existing) {
      if (existing.tag !== tag)
        problems.push(`VNet ${id} is wanted with tag ${existing.tag ?? '(existing)'} and ${tag ?? '(existing)'}`);
      if (!existing.sources.includes(source)) existing.sources.push(source);
      return;
    }
    vnets.set(id, { id, tag, alias: '', sources: [source], create });
  };

  const usedPortgroups = portgroups
    .filter((pg) => used.portgroupKeys.has(pg.key))
    .sort((a, b) => compareCodeUnits(a.name, b.name));
  for (const pg of usedPortgroups) {
    const override = overrides.get(pg.name);
    if (override) {
      addVnet(override.vnet, override.tag, pg.name, override.tag !== undefined);
      byPortgroupKey[pg.key] = override.vnet;
      continue;
    }
    const cls = classifyPortgroup(pg);
    switch (cls.kind) {
      case 'access': {
        const id = `${options.vnetPrefix}${cls.tag}`;
        const p = sdnIdProblem(id);
        if (p) {
          problems.push(`VNet id for VLAN ${cls.tag} with prefix "${options.vnetPrefix}": ${p}`);
          continue;
        }
        addVnet(id, cls.tag, pg.name, true);
        byPortgroupKey[pg.key] = id;
        break;
      }
      case 'trunk':
        untranslated.push({
          network: pg.name,
          reason: `trunk portgroup carrying VLANs ${describeRanges(cls.ranges)}; a VLAN-zone VNet carries one tag: map it with an override to a VLAN-aware VNet`,
        });
        break;
      case 'pvlan':
        untranslated.push({
          network: pg.name,
          reason: `private VLAN ${cls.pvlanId} has no Proxmox SDN equivalent: map it with an override`,
        });
        break;
      case 'untagged':
        untranslated.push({ network: pg.name, reason: 'untagged portgroup: map it with an override to a VNet' });
        break;
      case 'uplink':
        untranslated.push({
          network: pg.name,
          reason: 'uplink portgroup of the distributed switch; VM NICs do not belong on it',
        });
        break;
    }
  }
  for (const name of [...used.standardNetworks].sort()) {
    const override = overrides.get(name);
    if (override) {
      addVnet(override.vnet, override.tag, name, override.tag !== undefined);
      byNetworkName[name] = override.vnet;
    } else {
      untranslated.push({
        network: name,
        reason:
          'standard-switch network: ferry translates distributed portgroups only; move the NIC to a distributed portgroup or map it with an override',
      });
    }
  }

  const tags = new Map<number, string>();
  for (const v of vnets.values()) {
    v.sources.sort();
    v.alias = v.sources.join(', ').slice(0, MAX_ALIAS);
    if (v.tag === undefined) continue;
    const other = tags.get(v.tag);
    if (other) problems.push(`VNets ${other} and ${v.id} would both carry VLAN ${v.tag} in zone ${options.zone}`);
    tags.set(v.tag, v.id);
  }
  if (problems.length > 0) throw new VnetPlanError(problems);

  return {
    zone: { id: options.zone, bridge: options.bridge },
    vnets: [...vnets.values()].sort((a, b) => compareCodeUnits(a.id, b.id)),
    byPortgroupKey,
    byNetworkName,
    untranslated,
  };
}

function validTag(tag: number): boolean {
  return Number.isInteger(tag) && tag >= 1 && tag <= 4094;
}
