import { ApiError, fail } from '../api-error';
import type { Cluster } from '../cluster';
import type { RouteTable, SimRequest } from '../routes/types';
import { haConfig, parseSid, type HaGroup, type HaResource, type HaRule } from './state';

/**
 * pve-ha-manager's API (API2/HA/Resources.pm, Groups.pm, Rules.pm, Status.pm) over the simulated HA
 * configuration. PVE 8 has groups; PVE 9 keeps the group endpoints (deprecated) and adds rules, and
 * once no group is left ("groups have been migrated") refuses `group` on resources, while rules are
 * refused as long as a group is left. Not simulated: the CRM (no resource is ever started, moved or
 * fenced), the rules' feasibility check, migrate/relocate.
 */
const flag = (v: string | undefined) => (v === undefined ? undefined : v === '1');
const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));
const defined = <T extends object>(o: T) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
const bool = (v: boolean | undefined) => (v === undefined ? undefined : v ? 1 : 0);

function resourceView(cluster: Cluster, sid: string, r: HaResource, hideGroup: boolean): Record<string, unknown> {
  const ha = haConfig(cluster);
  const view: Record<string, unknown> = {
    sid,
    digest: ha.digest('resources'),
    ...defined({ ...r, failback: bool(r.failback) }),
  };
  if (hideGroup) delete view.group;
  return view;
}

/** PVE 9 hides a resource's `group` once the groups are migrated (it is in a rule now). */
const hidesGroup = (cluster: Cluster) => cluster.flavour !== '8.4' && haConfig(cluster).groupsMigrated();

function resourceOptions(req: SimRequest): Partial<HaResource> {
  const p = req.params;
  return defined({
    state: p.state,
    group: p.group,
    max_restart: num(p.max_restart),
    max_relocate: num(p.max_relocate),
    failback: flag(p.failback),
    comment: p.comment,
  });
}

/** The part of check_config and the plugin checks a created resource goes through (PVEVM/PVECT verify_name, exists). */
function checkGuest(cluster: Cluster, type: string, name: string): void {
  if (type !== 'vm' && type !== 'ct') throw fail(`unknown resource type '${type}'`);
  if (!/^[1-9][0-9]+$/.test(name)) throw fail('invalid VMID');
  const vmid = Number(name);
  const exists = type === 'vm' ? cluster.vms.has(vmid) : cluster.containers.some((c) => c.vmid === vmid);
  // PVE 8's wording has "exists", PVE 9's "exist".
  if (!exists)
    throw fail(`resource '${type}:${vmid}' does not ${cluster.flavour === '8.4' ? 'exists' : 'exist'} in cluster`);
}

function groupView(cluster: Cluster, group: string, g: HaGroup): Record<string, unknown> {
  return {
    group,
    type: 'group',
    digest: haConfig(cluster).digest('groups'),
    ...defined({ ...g, restricted: bool(g.restricted), nofailback: bool(g.nofailback) }),
  };
}

function ruleView(cluster: Cluster, rule: string, r: HaRule): Record<string, unknown> {
  const base = {
    rule,
    type: r.type,
    digest: haConfig(cluster).digest('rules'),
    order: r.order,
    resources: [...r.resources].sort().join(','),
  };
  const defaults =
    r.type === 'node-affinity' ? { strict: bool(r.strict ?? false), nodes: r.nodes } : { affinity: r.affinity };
  return { ...base, ...defined({ ...defaults, disable: r.disable ? 1 : undefined, comment: r.comment }) };
}

function checkNodes(cluster: Cluster, nodes: string): void {
  const missing = nodes
    .split(/[,;\s]+/)
    .filter(Boolean)
    .map((n) => n.split(':')[0]!)
    .filter((n) => !cluster.nodes.includes(n));
  if (missing.length > 0) throw fail(`cannot use non-existent node(s) ${[...new Set(missing)].sort().join(', ')}.`);
}

function ruleResources(cluster: Cluster, list: string): string[] {
  const ids = [...new Set(list.split(/[,;\s]+/).filter(Boolean))];
  if (ids.length === 0) throw fail('no resources were specified');
  const unmanaged = ids.filter((sid) => !haConfig(cluster).resources.has(sid)).sort();
  if (unmanaged.length > 0) throw fail(`cannot use unmanaged resource(s) ${unmanaged.join(', ')}.`);
  return ids;
}

/**
 * The one feasibility check of PVE::HA::Rules simulated: a negative resource-affinity rule cannot keep
 * more resources apart than there are nodes (400, "Rule '…' is invalid.").
 */
function assertFeasible(cluster: Cluster, id: string, rule: HaRule): void {
  if (
    rule.type === 'resource-affinity' &&
    rule.affinity === 'negative' &&
    rule.resources.length > cluster.nodes.length
  ) {
    throw new ApiError(400, `Rule '${id}' is invalid.`, {
      resources: 'rule defines more resources than available nodes',
    });
  }
}

function requireMigrated(cluster: Cluster, what: 'create' | 'update'): void {
  if (!haConfig(cluster).groupsMigrated()) throw fail(`cannot ${what} ha rule: ha groups have not been migrated yet`);
}

export const haRoutes: RouteTable = {
  'GET /cluster/ha': ({ cluster }) => [
    { id: 'status' },
    { id: 'resources' },
    { id: 'groups' },
    ...(cluster.flavour === '8.4' ? [] : [{ id: 'rules' }]),
  ],

  'GET /cluster/ha/resources': ({ cluster, params }) => {
    const ha = haConfig(cluster);
    return [...ha.resources.entries()]
      .filter(([, r]) => params.type === undefined || r.type === params.type)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([sid, r]) => {
        const view = resourceView(cluster, sid, r, hidesGroup(cluster));
        if (r.group && !ha.groups.has(r.group) && view.group)
          view.errors = { group: `group '${r.group}' does not exist` };
        return view;
      });
  },

  'GET /cluster/ha/resources/{sid}': ({ cluster, params }) => {
    const { sid } = parseSid(cluster, params.sid!);
    const r = haConfig(cluster).resources.get(sid);
    if (!r) throw fail(`no such resource '${sid}'`);
    return resourceView(cluster, sid, r, hidesGroup(cluster));
  },

  'POST /cluster/ha/resources': (req) => {
    const { cluster, params } = req;
    const ha = haConfig(cluster);
    const { sid, type, name } = parseSid(cluster, params.sid!);
    if (params.type !== undefined && params.type !== type) throw fail('types does not match');
    if (cluster.flavour !== '8.4' && params.group !== undefined && ha.groupsMigrated()) {
      throw fail("invalid parameter 'group': ha groups have been migrated to rules");
    }
    checkGuest(cluster, type, name);
    // PVE does not check that the group exists on create: the list shows the error afterwards.
    if (ha.resources.has(sid)) throw fail(`resource ID '${sid}' already defined`);
    ha.resources.set(sid, { type: type as HaResource['type'], ...resourceOptions(req) });
    return null;
  },

  'PUT /cluster/ha/resources/{sid}': (req) => {
    const { cluster, params } = req;
    const ha = haConfig(cluster);
    const { sid, type } = parseSid(cluster, params.sid!);
    if (params.type !== undefined && params.type !== type) throw fail('types does not match');
    if (params.group) {
      if (cluster.flavour !== '8.4' && ha.groupsMigrated())
        throw fail("invalid parameter 'group': ha groups have been migrated to rules");
      if (!ha.groups.has(params.group)) throw fail(`HA group '${params.group}' does not exist`);
    }
    if (params.digest !== undefined && params.digest !== ha.digest('resources'))
      throw fail('detected modified configuration - file changed by other user? Try again.');
    const r = ha.resources.get(sid);
    if (!r) throw fail(`no such resource '${sid}'`);
    Object.assign(r, resourceOptions(req));
    for (const key of (params.delete ?? '').split(/[,;\s]+/).filter(Boolean)) {
      if (!['state', 'group', 'max_restart', 'max_relocate', 'failback', 'comment'].includes(key))
        throw fail(`no such option '${key}'`);
      delete (r as unknown as Record<string, unknown>)[key];
    }
    return null;
  },

  'DELETE /cluster/ha/resources/{sid}': ({ cluster, params }) => {
    const ha = haConfig(cluster);
    const { sid } = parseSid(cluster, params.sid!);
    if (!ha.resources.has(sid)) {
      throw fail(
        cluster.flavour === '8.4'
          ? `resource '${sid}' is not HA managed`
          : `cannot delete service '${sid}', not HA managed!`,
      );
    }
    // PVE 9's `purge` (default 1) also takes it out of every rule; PVE 8 has no rules.
    ha.deleteResource(sid, cluster.flavour !== '8.4' && params.purge !== '0');
    return null;
  },

  'GET /cluster/ha/groups': ({ cluster }) =>
    [...haConfig(cluster).groups.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([id, g]) => groupView(cluster, id, g)),

  'GET /cluster/ha/groups/{group}': ({ cluster, params }) => {
    const g = haConfig(cluster).groups.get(params.group!);
    if (!g) throw fail(`no such ha group '${params.group}'`);
    return groupView(cluster, params.group!, g);
  },

  'POST /cluster/ha/groups': ({ cluster, params }) => {
    const ha = haConfig(cluster);
    if (ha.groups.has(params.group!)) throw fail(`ha group ID '${params.group}' already defined`);
    checkNodes(cluster, params.nodes!);
    ha.groups.set(
      params.group!,
      defined({
        nodes: params.nodes!,
        restricted: flag(params.restricted),
        nofailback: flag(params.nofailback),
        comment: params.comment,
      }) as HaGroup,
    );
    return null;
  },

  'PUT /cluster/ha/groups/{group}': ({ cluster, params }) => {
    const ha = haConfig(cluster);
    if (params.digest !== undefined && params.digest !== ha.digest('groups'))
      throw fail('detected modified configuration - file changed by other user? Try again.');
    const g = ha.groups.get(params.group!);
    if (!g) throw fail(`no such ha group '${params.group}'`);
    if (params.nodes !== undefined) checkNodes(cluster, params.nodes);
    Object.assign(
      g,
      defined({
        nodes: params.nodes,
        restricted: flag(params.restricted),
        nofailback: flag(params.nofailback),
        comment: params.comment,
      }),
    );
    for (const key of (params.delete ?? '').split(/[,;\s]+/).filter(Boolean)) {
      if (key === 'nodes') throw fail(`unable to delete required option '${key}'`);
      delete (g as unknown as Record<string, unknown>)[key];
    }
    return null;
  },

  'DELETE /cluster/ha/groups/{group}': ({ cluster, params }) => {
    const ha = haConfig(cluster);
    const user = [...ha.resources.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .find(([, r]) => r.group === params.group);
    if (user) throw fail(`ha group is used by service '${user[0]}'`);
    ha.groups.delete(params.group!);
    return null;
  },

  'GET /cluster/ha/rules': ({ cluster, params }) =>
    [...haConfig(cluster).rules.entries()]
      .filter(
        ([, r]) =>
          (params.type === undefined || r.type === params.type) &&
          (params.resource === undefined || r.resources.includes(params.resource)),
      )
      .sort(([, a], [, b]) => a.order - b.order)
      .map(([id, r]) => ruleView(cluster, id, r)),

  'GET /cluster/ha/rules/{rule}': ({ cluster, params }) => {
    const r = haConfig(cluster).rules.get(params.rule!);
    if (!r) throw fail(`no such ha rule '${params.rule}'`);
    return ruleView(cluster, params.rule!, r);
  },

  'POST /cluster/ha/rules': ({ cluster, params }) => {
    requireMigrated(cluster, 'create');
    const ha = haConfig(cluster);
    const type = params.type as HaRule['type'];
    const misplaced = type === 'node-affinity' ? ['affinity'] : ['nodes', 'strict'];
    for (const key of misplaced)
      if (params[key] !== undefined) throw fail(`property '${key}' is not allowed for rule type '${type}'`);
    if (type === 'node-affinity' && params.nodes === undefined) throw fail("missing value for required option 'nodes'");
    if (type === 'resource-affinity' && params.affinity === undefined)
      throw fail("missing value for required option 'affinity'");
    if (ha.rules.has(params.rule!)) throw fail(`HA rule '${params.rule}' already defined`);
    const resources = ruleResources(cluster, params.resources!);
    if (params.nodes !== undefined) checkNodes(cluster, params.nodes);
    const order = Math.max(0, ...[...ha.rules.values()].map((r) => r.order)) + 1;
    const rule: HaRule = {
      type,
      resources,
      order,
      ...defined({
        nodes: params.nodes,
        strict: flag(params.strict),
        affinity: params.affinity,
        disable: flag(params.disable) || undefined,
        comment: params.comment,
      }),
    };
    assertFeasible(cluster, params.rule!, rule);
    ha.rules.set(params.rule!, rule);
    return null;
  },

  'PUT /cluster/ha/rules/{rule}': ({ cluster, params }) => {
    requireMigrated(cluster, 'update');
    const ha = haConfig(cluster);
    if (params.digest !== undefined && params.digest !== ha.digest('rules'))
      throw fail('detected modified configuration - file changed by other user? Try again.');
    const r = ha.rules.get(params.rule!);
    if (!r) throw fail(`HA rule '${params.rule}' does not exist`);
    if (params.type !== undefined && params.type !== r.type)
      throw fail(`rule type '${params.type}' does not match '${r.type}'`);
    const resources = params.resources !== undefined ? ruleResources(cluster, params.resources) : r.resources;
    if (params.nodes !== undefined) checkNodes(cluster, params.nodes);
    assertFeasible(cluster, params.rule!, { ...r, resources, ...defined({ affinity: params.affinity }) });
    r.resources = resources;
    Object.assign(
      r,
      defined({ nodes: params.nodes, strict: flag(params.strict), affinity: params.affinity, comment: params.comment }),
    );
    if (params.disable !== undefined) r.disable = params.disable === '1' || undefined;
    for (const key of (params.delete ?? '').split(/[,;\s]+/).filter(Boolean))
      delete (r as unknown as Record<string, unknown>)[key];
    return null;
  },

  'DELETE /cluster/ha/rules/{rule}': ({ cluster, params }) => {
    haConfig(cluster).rules.delete(params.rule!);
    return null;
  },

  'GET /cluster/ha/status/current': ({ cluster }) => haStatus(cluster),
};

/**
 * `ha-manager status` as the API gives it: quorum, the master, one LRM per node, one line per resource.
 * No CRM runs here, so the master and the LRMs are idle and each resource sits on its VM's node in the
 * state requested.
 */
function haStatus(cluster: Cluster): Array<Record<string, unknown>> {
  const now = Math.floor(Date.now() / 1000);
  const ha = haConfig(cluster);
  const [master] = cluster.nodes;
  const lines: Array<Record<string, unknown>> = [
    { id: 'quorum', type: 'quorum', node: master, status: 'OK', quorate: 1 },
    {
      id: 'master',
      type: 'master',
      node: master,
      status: `${master} (idle, ${new Date(now * 1000).toString()})`,
      timestamp: now,
    },
    ...cluster.nodes.map((node) => ({
      id: `lrm:${node}`,
      type: 'lrm',
      node,
      status: `${node} (idle, ${new Date(now * 1000).toString()})`,
      timestamp: now,
    })),
  ];
  for (const [sid, r] of [...ha.resources.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const vm = cluster.vms.get(Number(sid.split(':')[1]));
    const node = vm?.node ?? cluster.containers.find((c) => `ct:${c.vmid}` === sid)?.node ?? master;
    const state = r.state === 'enabled' || r.state === undefined ? 'started' : r.state;
    lines.push({
      id: `service:${sid}`,
      type: 'service',
      sid,
      node,
      state,
      request_state: state,
      crm_state: state,
      status: `${sid} (${node}, ${state})`,
      max_restart: r.max_restart ?? 1,
      max_relocate: r.max_relocate ?? 1,
      ...(r.group && !hidesGroup(cluster) ? { group: r.group } : {}),
      ...(cluster.flavour !== '8.4' ? { failback: r.failback === false ? 0 : 1 } : {}),
    });
  }
  return lines;
}
