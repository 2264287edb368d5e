import { createHash } from 'node:crypto';
import { fail } from '../api-error';
import type { Cluster } from '../cluster';

/**
 * The HA manager's configuration as pve-ha-manager keeps it in /etc/pve/ha: resources.cfg, groups.cfg
 * and (PVE 9) rules.cfg, one set per simulated cluster. Only the configuration: there is no CRM/LRM,
 * so a resource's VM is never started or moved by HA here.
 */
export interface HaResource {
  type: 'vm' | 'ct';
  state?: string;
  group?: string;
  max_restart?: number;
  max_relocate?: number;
  failback?: boolean;
  comment?: string;
}

export interface HaGroup {
  nodes: string;
  restricted?: boolean;
  nofailback?: boolean;
  comment?: string;
}

export interface HaRule {
  type: 'node-affinity' | 'resource-affinity';
  /** Resource ids, in the order given (PVE encodes them sorted). */
  resources: string[];
  nodes?: string;
  strict?: boolean;
  affinity?: string;
  disable?: boolean;
  comment?: string;
  order: number;
}

export class HaConfig {
  readonly resources = new Map<string, HaResource>();
  readonly groups = new Map<string, HaGroup>();
  readonly rules = new Map<string, HaRule>();

  /** PVE 9's have_groups_been_migrated: no group is left (the CRM moves them into rules). */
  groupsMigrated(): boolean {
    return this.groups.size === 0;
  }

  /** The section-config digest of one file (sha1 of its content, as PVE's SectionConfig). */
  digest(file: 'resources' | 'groups' | 'rules'): string {
    const map: Map<string, unknown> = this[file];
    const text = [...map.keys()]
      .sort()
      .map((id) => `${id}\n${JSON.stringify(map.get(id))}`)
      .join('\n\n');
    return createHash('sha1').update(text).digest('hex');
  }

  /** Removes a resource; with purge (PVE 9) also from every rule, dropping a rule left without resources. */
  deleteResource(sid: string, purge: boolean): void {
    this.resources.delete(sid);
    if (!purge) return;
    for (const [id, rule] of this.rules) {
      rule.resources = rule.resources.filter((r) => r !== sid);
      if (rule.resources.length === 0) this.rules.delete(id);
    }
  }
}

/**
 * What PVE 9's CRM does once every node runs 9 (PVE::HA::Groups::migrate_groups_to_rules): each group
 * a resource uses becomes the node-affinity rule `ha-group-<group>` over those resources; then the
 * groups and the resources' `group` go. For tests of a cluster after its upgrade.
 */
export function migrateGroupsToRules(ha: HaConfig): void {
  const used = new Map<string, string[]>();
  for (const [sid, r] of [...ha.resources.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    if (r.group && ha.groups.has(r.group)) used.set(r.group, [...(used.get(r.group) ?? []), sid]);
  }
  for (const [group, resources] of used) {
    const g = ha.groups.get(group)!;
    const order = Math.max(0, ...[...ha.rules.values()].map((x) => x.order)) + 1;
    ha.rules.set(`ha-group-${group}`, {
      type: 'node-affinity',
      resources,
      nodes: g.nodes,
      strict: g.restricted ?? false,
      comment: g.comment ?? `Generated from HA group '${group}'.`,
      order,
    });
  }
  ha.groups.clear();
  for (const r of ha.resources.values()) delete r.group;
}

const configs = new WeakMap<Cluster, HaConfig>();

export function haConfig(cluster: Cluster): HaConfig {
  let config = configs.get(cluster);
  if (!config) configs.set(cluster, (config = new HaConfig()));
  return config;
}

/**
 * PVE::HA::Config::parse_sid: `vm:100`/`ct:100` as given; a bare VMID becomes `vm:`/`ct:` by what the
 * guest is, and must exist.
 */
export function parseSid(cluster: Cluster, raw: string): { sid: string; type: string; name: string } {
  const bare = /^(\d+)$/.exec(raw);
  if (bare) {
    const vmid = Number(bare[1]);
    const type = cluster.vms.has(vmid) ? 'vm' : cluster.containers.some((c) => c.vmid === vmid) ? 'ct' : undefined;
    if (!type) throw fail(`unable do detect SID from VMID - VM/CT ${vmid} does not exist`);
    return { sid: `${type}:${vmid}`, type, name: bare[1]! };
  }
  const typed = /^(\S+):(\S+)$/.exec(raw);
  if (!typed) throw fail(`unable to parse service id '${raw}'`);
  return { sid: raw, type: typed[1]!, name: typed[2]! };
}

/**
 * qemu-server's destroy (API2/Qemu.pm destroy_vm): a VM that is an HA resource is destroyed only with
 * `purge`, which then also removes it from resources.cfg. qemu-server calls delete_service_from_config
 * without pve-ha-manager's own `purge`, so on PVE 9 a rule naming the VM keeps naming it.
 */
export function checkHaBeforeDestroy(cluster: Cluster, vmid: number, purge: boolean): void {
  if (!purge && haConfig(cluster).resources.has(`vm:${vmid}`)) {
    throw fail(`unable to remove VM ${vmid} - used in HA resources and purge parameter not set.`);
  }
}

/** The purge part of a destroy, once the VM is gone; answers the task log line PVE prints, if any. */
export function purgeHaOnDestroy(cluster: Cluster, vmid: number): string | undefined {
  const ha = haConfig(cluster);
  const sid = `vm:${vmid}`;
  if (!ha.resources.has(sid)) return undefined;
  ha.deleteResource(sid, false);
  return `NOTE: removed VM ${vmid} from HA resource configuration.`;
}
