import { parseUpid } from '../../../src/proxmox/upid';
import { fail, paramError } from '../api-error';
import { VERSIONS } from '../cluster';
import { guestResource } from '../guest-stats';
import { nodeResource } from './nodes';
import { storageResource } from './storage';
import { int, WithTotal, type RouteTable, type SimRequest } from './types';

/**
 * /version, /cluster/resources, /cluster/nextid and the task endpoints. The resources are those the
 * caller may see (Cluster.pm resources): pools with Pool.Audit, guests with VM.Audit, storages with
 * Datastore.Audit, SDN zones with SDN.Audit; a node's figures only with Sys.Audit. PVE 9's nodes
 * broadcast `network` rows (the `localnetwork` zone and each SDN zone) in place of 8's `sdn` rows.
 */
function resources(req: SimRequest) {
  const { cluster, perm } = req;
  const type = req.params.type;
  const rows: Array<Record<string, unknown>> = [];
  if (!type || type === 'pool') {
    for (const pool of [...cluster.pools.keys()].sort())
      if (perm.has(`/pool/${pool}`, ['Pool.Audit'])) rows.push({ id: `/pool/${pool}`, type: 'pool', pool });
  }
  if (!type || type === 'vm') {
    const visibleBefore = Date.now() - cluster.settings.resourcesLagMs;
    for (const vm of cluster.vms.values()) {
      // With a lag set (tests ask for one), a new VM shows only once pmxcfs would have spread it.
      if (cluster.settings.resourcesLagMs > 0 && vm.createdMs > visibleBefore) continue;
      if (perm.has(`/vms/${vm.vmid}`, ['VM.Audit'])) rows.push(guestResource(cluster, { kind: 'qemu', vm }));
    }
    for (const ct of cluster.containers)
      if (perm.has(`/vms/${ct.vmid}`, ['VM.Audit'])) rows.push(guestResource(cluster, { kind: 'lxc', ct }));
  }
  if (!type || type === 'node') {
    for (const node of cluster.nodes) rows.push(nodeResource(cluster, node, perm.has(`/nodes/${node}`, ['Sys.Audit'])));
  }
  if (!type || type === 'storage') {
    for (const s of cluster.storages.list()) {
      if (!perm.has(`/storage/${s.id}`, ['Datastore.Audit'])) continue;
      for (const node of cluster.nodes) rows.push(storageResource(cluster, s, node));
    }
  }
  const zones = Object.keys(cluster.sdnRunning.zones).sort();
  if ((!type || type === 'sdn') && cluster.flavour === '8.4') {
    for (const node of [...cluster.nodes].sort())
      for (const zone of zones)
        if (perm.has(`/sdn/zones/${zone}`, ['SDN.Audit']))
          rows.push({ id: `sdn/${node}/${zone}`, type: 'sdn', sdn: zone, node, status: 'ok' });
  }
  if ((!type || type === 'network') && cluster.flavour !== '8.4') rows.push(...networkRows(req, zones));
  return rows;
}

/** PVE 9's `network` rows: the `localnetwork` zone of every node, then each applied SDN zone per node. */
function networkRows(req: SimRequest, zones: string[]): Array<Record<string, unknown>> {
  const { cluster, perm } = req;
  const rows: Array<Record<string, unknown>> = [];
  const row = (node: string, zone: string, extra: Record<string, unknown> = {}) => ({
    id: `network/${node}/zone/${zone}`,
    type: 'network',
    'network-type': 'zone',
    network: zone,
    node,
    status: 'ok',
    ...extra,
  });
  if (perm.has('/sdn/zones/localnetwork', ['SDN.Audit']))
    for (const node of cluster.nodes) rows.push(row(node, 'localnetwork'));
  for (const node of [...cluster.nodes].sort())
    for (const zone of zones)
      if (perm.has(`/sdn/zones/${zone}`, ['SDN.Audit']))
        rows.push(row(node, zone, { 'zone-type': cluster.sdnRunning.zones[zone]!.type }));
  return rows;
}

export const clusterRoutes: RouteTable = {
  'GET /version': (req) => VERSIONS[req.cluster.flavour],

  'GET /cluster/resources': resources,

  'GET /cluster/nextid': (req) => {
    const { cluster } = req;
    if (req.params.vmid !== undefined) {
      const vmid = Number(req.params.vmid);
      if (cluster.vmidTaken(vmid)) throw paramError({ vmid: `VM ${vmid} already exists` });
      return req.params.vmid;
    }
    // PVE answers a string here (its JSON encoder sees a Perl string): clients must accept both.
    return String(cluster.nextFreeVmid());
  },

  'GET /nodes/{node}/tasks': (req) => {
    const node = req.params.node!;
    req.cluster.requireNode(node);
    const vmid = req.params.vmid;
    const limit = int(req.params.limit, 50);
    // PVE's sources: `archive` (the default) holds ended tasks, `active` the running ones (status RUNNING).
    const source = req.params.source ?? 'archive';
    const listed = (t: { endMs?: number }) => source === 'all' || (source === 'active') === (t.endMs === undefined);
    // Tasks.pm: an auditor of the node sees every task, anyone else its own (a user its tokens' too).
    const auditor = req.perm.has(`/nodes/${node}`, ['Sys.Audit']);
    const mine = (t: { user: string }) => {
      const [user, token] = t.user.split('!');
      return token ? req.user === t.user || req.user === user : req.user === user;
    };
    const matching = req.cluster.tasks.history
      .filter(
        (t) =>
          t.node === node &&
          listed(t) &&
          (auditor || mine(t)) &&
          (!req.params.userfilter || t.user.toLowerCase().includes(req.params.userfilter.toLowerCase())) &&
          (vmid === undefined || t.id === vmid) &&
          (!req.params.typefilter || t.type === req.params.typefilter),
      )
      .filter((t) => req.params.errors !== '1' || (t.exitstatus !== undefined && t.exitstatus !== 'OK'))
      .reverse();
    const start = int(req.params.start, 0);
    const rows = matching.slice(start, start + limit).map((t) => ({
      ...upidFields(t.upid),
      ...(t.endMs !== undefined
        ? { endtime: Math.floor(t.endMs / 1000), status: t.exitstatus }
        : { status: 'RUNNING' }),
    }));
    // PVE counts every task its filter passed (set_result_attrib('total', $count)).
    return new WithTotal(rows, matching.length);
  },

  'GET /nodes/{node}/tasks/{upid}/status': (req) => {
    const task = taskOf(req);
    return {
      ...upidFields(task.upid),
      status: task.endMs === undefined ? 'running' : 'stopped',
      ...(task.endMs !== undefined ? { exitstatus: task.exitstatus } : {}),
    };
  },

  'DELETE /nodes/{node}/tasks/{upid}': stopTask,

  'GET /nodes/{node}/tasks/{upid}/log': (req) => {
    const task = taskOf(req);
    // Like PVE's dump_logfile: limit 0 reads to the end, `total` counts every line, an empty log reads "no content".
    const start = int(req.params.start, 0);
    const limit = int(req.params.limit, 50);
    if (task.log.length === 0) return new WithTotal([{ n: 1, t: 'no content' }], 1);
    const lines = task.log
      .slice(start, limit === 0 ? undefined : start + limit)
      .map((t, i) => ({ n: start + i + 1, t }));
    return new WithTotal(lines, task.log.length);
  },
};

/**
 * pve-manager's stop_task: the upid must name a task of the node (else "no such task"); someone other
 * than the task's owner (a token's tasks: the token or its user) needs Sys.Modify on /nodes/<node>; a
 * running task is sent SIGTERM and given 5 s to end (tasks.ts), an ended one is left alone. null.
 */
async function stopTask(req: SimRequest): Promise<null> {
  const upid = req.params.upid!;
  const node = req.params.node!;
  req.cluster.requireNode(node);
  let parsed;
  try {
    parsed = parseUpid(upid);
  } catch {
    throw paramError({ upid: 'unable to parse worker upid' });
  }
  const task = req.cluster.tasks.get(upid);
  if (!task || parsed.node !== node) throw paramError({ upid: 'no such task' });
  const [owner, token] = parsed.user.split('!');
  const isOwner = token ? req.user === parsed.user || req.user === owner : req.user === owner;
  if (!isOwner) req.perm.check(`/nodes/${node}`, ['Sys.Modify']);
  await req.cluster.tasks.stop(upid);
  return null;
}

/**
 * A task's fields as pve-common's UPID decode gives them (pid, pstart, starttime from the UPID's hex),
 * a token's tasks with `user` and `tokenid` apart (pve-manager's convert_token_task).
 */
function upidFields(upid: string): Record<string, unknown> {
  const u = parseUpid(upid);
  const [user, tokenid] = u.user.split('!');
  return {
    upid,
    node: u.node,
    pid: u.pid,
    pstart: u.pstart,
    starttime: u.starttime,
    type: u.type,
    id: u.id,
    user,
    ...(tokenid ? { tokenid } : {}),
  };
}

function taskOf(req: SimRequest) {
  const upid = req.params.upid!;
  let parsed;
  try {
    parsed = parseUpid(upid);
  } catch {
    throw paramError({ upid: 'unable to parse worker upid' });
  }
  if (parsed.node !== req.params.node) throw fail(`no such task (wrong node '${req.params.node}')`);
  const task = req.cluster.tasks.get(upid);
  if (!task) throw fail(`no such task`);
  return task;
}
