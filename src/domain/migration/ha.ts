/**
 * `migration.ha`: after a verified cutover the VM becomes an HA resource (`vm:<vmid>`), and leaves the
 * HA configuration again on rollback. Where HA may run it differs by version: PVE 8 binds a resource to
 * an HA *group*; PVE 9 replaced groups with *rules* (a group became the node-affinity rule
 * `ha-group-<group>` when the cluster migrated them) and refuses `group` from then on.
 */
export interface HaSettings {
  /** PVE 8 (or a PVE 9 cluster whose groups are not migrated yet): the HA group the resource joins. */
  group?: string;
  /** PVE 9: an existing HA rule (node- or resource-affinity) the resource is added to. */
  rule?: string;
  /** The requested state (PVE's default: started). */
  state: 'started' | 'stopped';
  maxRestart?: number;
  maxRelocate?: number;
}

/** What the cluster's HA configuration offers, as read just before registering. */
export interface HaCluster {
  /** `GET /version`'s version, e.g. 9.1.3. */
  version: string;
  major: number;
  groups: string[];
  /** Absent on PVE 8 (no rules). */
  rules?: string[];
}

/** How ferry registers the VM, once the settings fit the cluster: the resource, and the rule to add it to. */
export interface HaPlan {
  sid: string;
  group?: string;
  rule?: string;
}

export const haSid = (vmid: number): string => `vm:${vmid}`;

/** PVE 9's have_groups_been_migrated: no group left. */
export const groupsMigrated = (cluster: HaCluster): boolean => cluster.major >= 9 && cluster.groups.length === 0;

const listed = (names: string[]) => (names.length > 0 ? names.join(', ') : 'none');

/**
 * The registration for this cluster, or why the settings do not fit it. PVE 8 takes an unknown group
 * silently (the resource then runs nowhere in particular), so ferry checks the group exists itself.
 */
export function haPlan(vmid: number, settings: HaSettings, cluster: HaCluster): HaPlan | { refusal: string } {
  const sid = haSid(vmid);
  if (settings.group !== undefined) {
    if (groupsMigrated(cluster)) {
      return {
        refusal:
          `migration.ha.group '${settings.group}': Proxmox VE ${cluster.version} has no HA groups any more (they became node-affinity rules; ` +
          `a group 'g' became the rule 'ha-group-g'): set migration.ha.rule instead (rules: ${listed(cluster.rules ?? [])})`,
      };
    }
    if (!cluster.groups.includes(settings.group)) {
      return {
        refusal: `migration.ha.group '${settings.group}': no such HA group on the cluster (groups: ${listed(cluster.groups)})`,
      };
    }
    return { sid, group: settings.group };
  }
  if (settings.rule !== undefined) {
    if (cluster.rules === undefined) {
      return {
        refusal: `migration.ha.rule '${settings.rule}': Proxmox VE ${cluster.version} has no HA rules (they came with PVE 9): set migration.ha.group instead`,
      };
    }
    if (!groupsMigrated(cluster)) {
      return {
        refusal: `migration.ha.rule '${settings.rule}': the cluster still has HA groups (${listed(cluster.groups)}), and PVE takes no rule change until they are migrated: set migration.ha.group`,
      };
    }
    if (!cluster.rules.includes(settings.rule)) {
      return {
        refusal: `migration.ha.rule '${settings.rule}': no such HA rule on the cluster (rules: ${listed(cluster.rules)})`,
      };
    }
    return { sid, rule: settings.rule };
  }
  return { sid };
}

/** A rule's resource list with the VM's resource added (kept as given, without repeats). */
export function withResource(resources: string, sid: string): string {
  const ids = resources.split(/[,;\s]+/).filter(Boolean);
  return (ids.includes(sid) ? ids : [...ids, sid]).join(',');
}

/** The run's HA registration: set before it is asked for, so a rollback also undoes one that failed half-way. */
export interface HaRegistration {
  sid: string;
  group?: string;
  rule?: string;
  /** Done (false while asked for, or when the registration failed). */
  registered: boolean;
  /** A rollback took it out again. */
  removed?: boolean;
}
