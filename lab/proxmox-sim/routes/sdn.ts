import { randomBytes } from 'node:crypto';
import { fail, paramError } from '../api-error';
import { sdnDigest, type Cluster, type SdnConfig } from '../cluster';
import { applySdnObjects } from '../sdn/objects';
import { startTask, type RouteTable, type SimRequest } from './types';

/**
 * /cluster/sdn…: zones and vnets are edited in a pending config and become running on apply
 * (`PUT /cluster/sdn`). On 9.1 a global lock guards the whole flow: while it is held, every SDN write
 * needs its token (pve-network >= 1.1.3); 8.4 has neither the lock nor the token parameter (the schema
 * check rejects `lock-token` there).
 */
type Section = 'zones' | 'vnets';
const KIND: Record<Section, 'zone' | 'vnet'> = { zones: 'zone', vnets: 'vnet' };
const CONTROL = ['zone', 'vnet', 'lock-token', 'digest', 'delete'];

/**
 * pve-network's lock_sdn_config: refused only while a lock is held and the request lacks its token; with
 * no lock held, any token (or none) passes. `errmsg` is the prefix the endpoint gives its error.
 */
function checkToken(req: SimRequest, errmsg: string): void {
  const held = req.cluster.sdnLockToken;
  if (held !== undefined && req.params['lock-token'] !== held) throw fail(`${errmsg}: invalid lock token provided!`);
}

const clone = (c: SdnConfig): SdnConfig => structuredClone(c);

/** Whether an item is the same in the edited and the running config (key order aside). */
function same(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  return (
    !!a && !!b && Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v)
  );
}

/**
 * Items with the digest of their section; `running` reads the applied config, `pending` marks differences.
 * A vnet carries its section type (`type: vnet`) as pve-network's SectionConfig parses it; a zone's type
 * is its own.
 */
function list(cluster: Cluster, section: Section, params: Record<string, string>) {
  const sectionType = section === 'vnets' ? { type: 'vnet' } : {};
  if (params.running === '1')
    return Object.entries(cluster.sdnRunning[section]).map(([id, item]) =>
      typed({ [KIND[section]]: id, ...sectionType, ...item }),
    );
  const digest = sdnDigest(cluster.sdn[section]);
  const ids = new Set([
    ...Object.keys(cluster.sdn[section]),
    ...(params.pending === '1' ? Object.keys(cluster.sdnRunning[section]) : []),
  ]);
  return [...ids].sort().map((id) => {
    const edited = cluster.sdn[section][id];
    const running = cluster.sdnRunning[section][id];
    const item: Record<string, unknown> = { [KIND[section]]: id, ...sectionType, ...(edited ?? running), digest };
    if (params.pending === '1') {
      const state = !running ? 'new' : !edited ? 'deleted' : !same(edited, running) ? 'changed' : undefined;
      if (state) item.state = state;
      if (state === 'changed') {
        const pending: Record<string, string> = {};
        for (const [k, v] of Object.entries(edited!)) if (running?.[k] !== v) pending[k] = v;
        item.pending = typed(pending);
      }
    }
    return typed(item);
  });
}

const NUMERIC = new Set(['tag', 'mtu', 'vlanaware', 'isolate-ports', 'vrf-vxlan', 'vxlan-port']);
function typed(item: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(item).map(([k, v]) => [k, NUMERIC.has(k) && typeof v === 'string' ? Number(v) : v]),
  );
}

function checkVnet(cluster: Cluster, id: string, vnet: Record<string, string>): void {
  const zone = cluster.sdn.zones[vnet.zone!];
  if (!zone) throw fail(`zone '${vnet.zone}' doesn't exist`);
  if (zone.type === 'vlan' || zone.type === 'qinq') {
    if (vnet.tag === undefined) throw fail('missing vlan tag');
    if (Number(vnet.tag) > 4096) throw fail('vlan tag max value is 4096');
    for (const [otherId, other] of Object.entries(cluster.sdn.vnets)) {
      if (otherId !== id && other.zone === vnet.zone && other.tag === vnet.tag)
        throw fail(`tag ${vnet.tag} already exist in vnet ${otherId}`);
    }
  }
}

function checkZone(zone: Record<string, string>): void {
  if ((zone.type === 'vlan' || zone.type === 'qinq') && !zone.bridge)
    throw paramError({ bridge: 'property is missing and it is not optional' });
}

function create(req: SimRequest, section: Section) {
  const { cluster } = req;
  const kind = KIND[section];
  const id = req.params[kind]!;
  checkToken(req, `create sdn ${kind} object failed`);
  if (cluster.sdn[section][id]) throw fail(`sdn ${kind} object ID '${id}' already defined`);
  const item = Object.fromEntries(
    Object.entries(req.params).filter(([k]) => !CONTROL.includes(k) || (section === 'vnets' && k === 'zone')),
  );
  if (section === 'vnets') {
    delete item.type;
    checkVnet(cluster, id, item);
  } else checkZone(item);
  cluster.sdn[section][id] = item;
  return null;
}

function update(req: SimRequest, section: Section) {
  const { cluster } = req;
  const kind = KIND[section];
  const id = req.params[kind]!;
  checkToken(req, `update sdn ${kind} object failed`);
  const existing = cluster.sdn[section][id];
  if (!existing) throw fail(`sdn ${kind} '${id}' does not exist`);
  if (req.params.digest !== undefined && req.params.digest !== sdnDigest(cluster.sdn[section])) {
    throw fail('detected modified configuration - file changed by other user? Try again.');
  }
  const next = { ...existing };
  for (const key of (req.params.delete ?? '').split(/[,;\s]+/).filter(Boolean)) delete next[key];
  for (const [k, v] of Object.entries(req.params))
    if (!CONTROL.includes(k) || (section === 'vnets' && k === 'zone')) next[k] = v;
  if (section === 'vnets') checkVnet(cluster, id, next);
  else checkZone(next);
  cluster.sdn[section][id] = next;
  return null;
}

function remove(req: SimRequest, section: Section) {
  const { cluster } = req;
  const kind = KIND[section];
  const id = req.params[kind]!;
  checkToken(req, `delete sdn ${kind} object failed`);
  if (!cluster.sdn[section][id]) throw fail(`sdn ${kind} object ID '${id}' does not exist`);
  if (section === 'zones') {
    const user = Object.entries(cluster.sdn.vnets).find(([, v]) => v.zone === id);
    if (user) throw fail(`Can't delete zone '${id}', it is used by vnet '${user[0]}'`);
  }
  delete cluster.sdn[section][id];
  return null;
}

function get(req: SimRequest, section: Section) {
  const kind = KIND[section];
  const found = list(req.cluster, section, req.params).find((i) => i[kind] === req.params[kind]);
  if (!found) throw fail(`sdn ${kind} '${req.params[kind]}' does not exist`);
  return found;
}

/** A UUIDv7 (time-ordered), as pve-network hands out lock tokens. */
function uuidv7(): string {
  const bytes = randomBytes(16);
  const ms = BigInt(Date.now());
  for (let i = 0; i < 6; i++) bytes[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** pve-network's has_pending_changes: any item new, deleted or with a value that differs (key order aside). */
function pendingChanges(c: Cluster): boolean {
  return (['zones', 'vnets'] as const).some((section) => {
    const ids = new Set([...Object.keys(c.sdn[section]), ...Object.keys(c.sdnRunning[section])]);
    return [...ids].some((id) => !same(c.sdn[section][id], c.sdnRunning[section][id]));
  });
}

export const sdnRoutes: RouteTable = {
  'GET /cluster/sdn/zones': (req) =>
    list(req.cluster, 'zones', req.params)
      .filter((z) => !req.params.type || z.type === req.params.type)
      .filter((z) => req.perm.has(`/sdn/zones/${String(z.zone)}`, ['SDN.Audit', 'SDN.Allocate'], true)),
  'POST /cluster/sdn/zones': (req) => create(req, 'zones'),
  'GET /cluster/sdn/zones/{zone}': (req) => get(req, 'zones'),
  'PUT /cluster/sdn/zones/{zone}': (req) => update(req, 'zones'),
  'DELETE /cluster/sdn/zones/{zone}': (req) => remove(req, 'zones'),
  'GET /cluster/sdn/vnets': (req) =>
    list(req.cluster, 'vnets', req.params).filter((v) =>
      req.perm.has(`/sdn/zones/${String(v.zone)}/${String(v.vnet)}`, ['SDN.Audit', 'SDN.Allocate'], true),
    ),
  'POST /cluster/sdn/vnets': (req) => create(req, 'vnets'),
  'GET /cluster/sdn/vnets/{vnet}': (req) => get(req, 'vnets'),
  'PUT /cluster/sdn/vnets/{vnet}': (req) => update(req, 'vnets'),
  'DELETE /cluster/sdn/vnets/{vnet}': (req) => remove(req, 'vnets'),

  'PUT /cluster/sdn': (req) => {
    const { cluster } = req;
    checkToken(req, 'could not commit SDN config');
    if (cluster.tasks.running('reloadnetworkall').length > 0)
      throw fail('reload network: another SDN reload is running, try again');
    const applied = clone(cluster.sdn);
    // Like pve-network: commit and release the lock under the config lock, then fork the reload task.
    cluster.sdnRunning = applied;
    applySdnObjects(cluster);
    if (req.params['lock-token'] !== undefined && req.params['release-lock'] !== '0') cluster.sdnLockToken = undefined;
    return startTask(req, { node: cluster.nodes[0]!, type: 'reloadnetworkall', id: '' }, async (task) => {
      await task.sleep(cluster.settings.taskMs);
      for (const node of cluster.nodes) {
        task.log(`${node}: reloading network config`);
        // A node's failed reload is only a warning of the task (pve-network warns and goes on).
        if (cluster.settings.sdnReloadFailNodes.includes(node))
          task.warn(`${node}: network reload failed (injected by the simulator)`);
      }
    }).upid;
  },

  'POST /cluster/sdn/lock': (req) => {
    const { cluster } = req;
    if (cluster.sdnLockToken !== undefined)
      throw fail('could not acquire lock for SDN config: invalid lock token provided!');
    if (pendingChanges(cluster) && req.params['allow-pending'] !== '1')
      throw fail('could not acquire lock for SDN config: configuration has pending changes');
    cluster.sdnLockToken = uuidv7();
    return cluster.sdnLockToken;
  },

  'DELETE /cluster/sdn/lock': (req) => {
    const { cluster } = req;
    if (req.params.force !== '1') {
      if (cluster.sdnLockToken === undefined || req.params['lock-token'] !== cluster.sdnLockToken)
        throw fail('could not release lock: invalid lock token provided!');
    }
    cluster.sdnLockToken = undefined;
    return null;
  },

  'POST /cluster/sdn/rollback': (req) => {
    const { cluster } = req;
    checkToken(req, 'could not rollback SDN configuration');
    cluster.sdn = clone(cluster.sdnRunning);
    if (req.params['lock-token'] !== undefined && req.params['release-lock'] !== '0') cluster.sdnLockToken = undefined;
    return null;
  },
};
