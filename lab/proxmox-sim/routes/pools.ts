import { fail } from '../api-error';
import type { Cluster, SimPool } from '../cluster';
import { guestResource } from '../guest-stats';
import { storageResource } from './storage';
import type { RouteTable, SimRequest } from './types';

/**
 * Resource pools (pve-manager's API2/Pool.pm): the list, one pool with its members (`poolid=`, or the
 * deprecated `/pools/{poolid}`), creating, updating (comment; guests and storages added, moved with
 * `allow-move`, or removed with `delete`) and deleting an empty one. Writes run under user.cfg's lock,
 * so their errors read "<what> failed: …". VMs join a pool when created or cloned with `pool=`, and leave
 * it when destroyed.
 */
function poolOf(cluster: Cluster, poolid: string): SimPool {
  const pool = cluster.pools.get(poolid);
  if (!pool) throw fail(`pool '${poolid}' does not exist`);
  return pool;
}

/** Runs a user.cfg write; a failure reads "<errmsg>: <reason>" (lock_user_config). */
function userConfigWrite(errmsg: string, write: () => void): null {
  try {
    write();
  } catch (err) {
    throw fail(`${errmsg}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return null;
}

/** A pool with its members (Pool.pm's index with `poolid`): guests by VMID as strings sort, then storages. */
function poolInfo(cluster: Cluster, poolid: string, type?: string): Record<string, unknown> {
  const pool = poolOf(cluster, poolid);
  const members: Array<Record<string, unknown>> = [...pool.vms]
    .sort((a, b) => String(a).localeCompare(String(b))) // Perl's sort of the VMIDs as strings
    .map((vmid) => {
      const vm = cluster.vms.get(vmid);
      const ct = cluster.containers.find((c) => c.vmid === vmid);
      return vm
        ? guestResource(cluster, { kind: 'qemu', vm })
        : ct
          ? guestResource(cluster, { kind: 'lxc', ct })
          : undefined;
    })
    .filter((m): m is Record<string, unknown> => m !== undefined && (type === undefined || m.type === type));
  if (type === undefined || type === 'storage') {
    // The answering node's view of each storage (extract_storage_stats).
    for (const id of [...pool.storage].sort()) {
      const storage = cluster.storages.get(id);
      if (storage) members.push(storageResource(cluster, storage, cluster.nodes[0]!));
    }
  }
  return { members, ...(pool.comment !== undefined ? { comment: pool.comment } : {}), poolid };
}

function updatePool(req: SimRequest): null {
  const { cluster, params } = req;
  const list = (v: string) => v.split(/[,;\s]+/).filter(Boolean);
  return userConfigWrite('update pools failed', () => {
    const poolid = params.poolid!;
    const pool = poolOf(cluster, poolid);
    if (params.comment !== undefined) pool.comment = params.comment;
    const remove = params.delete === '1';
    for (const vmid of list(params.vms ?? '').map(Number)) {
      if (remove) {
        if (!pool.vms.has(vmid)) throw new Error(`VM ${vmid} is not a pool member`);
        pool.vms.delete(vmid);
        continue;
      }
      if (pool.vms.has(vmid)) throw new Error(`VM ${vmid} is already a pool member`);
      const existing = cluster.poolOf(vmid);
      if (existing !== undefined) {
        if (params['allow-move'] !== '1')
          throw new Error(`VM ${vmid} belongs already to pool '${existing}' and 'allow-move' is not set`);
        cluster.pools.get(existing)!.vms.delete(vmid);
      }
      pool.vms.add(vmid);
    }
    for (const id of list(params.storage ?? '')) {
      if (remove) {
        if (!pool.storage.has(id)) throw new Error(`Storage '${id}' is not a pool member`);
        pool.storage.delete(id);
      } else {
        if (pool.storage.has(id)) throw new Error(`Storage '${id}' is already a pool member`);
        pool.storage.add(id);
      }
    }
  });
}

function deletePool(req: SimRequest): null {
  const { cluster } = req;
  return userConfigWrite('delete pool failed', () => {
    const poolid = req.params.poolid!;
    const pool = poolOf(cluster, poolid);
    const subpool = [...cluster.pools.keys()]
      .sort()
      .find((id) => id.startsWith(`${poolid}/`) && !id.slice(poolid.length + 1).includes('/'));
    if (subpool) throw new Error(`pool '${poolid}' is not empty (contains pool '${subpool}')`);
    const vmid = [...pool.vms].sort((a, b) => String(a).localeCompare(String(b))).find((id) => cluster.vmidTaken(id)); // destroyed guests do not count
    if (vmid !== undefined) throw new Error(`pool '${poolid}' is not empty (contains VM ${vmid})`);
    const storage = [...pool.storage].sort().find((id) => cluster.storages.get(id));
    if (storage) throw new Error(`pool '${poolid}' is not empty (contains storage '${storage}')`);
    cluster.pools.delete(poolid);
    for (let i = cluster.acl.length - 1; i >= 0; i--)
      if (cluster.acl[i]!.path === `/pool/${poolid}`) cluster.acl.splice(i, 1);
  });
}

export const poolRoutes: RouteTable = {
  // Pool.pm index: one pool by `poolid` unchecked (its check's answer is ignored), the list by Pool.Audit.
  'GET /pools': ({ cluster, params, perm }) => {
    if (params.poolid !== undefined) return [poolInfo(cluster, params.poolid, params.type)];
    return [...cluster.pools.keys()]
      .sort()
      .filter((id) => perm.has(`/pool/${id}`, ['Pool.Audit']))
      .map((id) => ({
        poolid: id,
        ...(cluster.pools.get(id)!.comment !== undefined ? { comment: cluster.pools.get(id)!.comment } : {}),
      }));
  },

  'POST /pools': ({ cluster, params }) =>
    userConfigWrite('create pool failed', () => {
      const poolid = params.poolid!;
      if (cluster.pools.has(poolid)) throw new Error(`pool '${poolid}' already exists`);
      const nested = /^(.*)\/([^/]+)$/.exec(poolid);
      if (nested && !cluster.pools.has(nested[1]!))
        throw new Error(`parent '${nested[1]}' of pool '${poolid}' does not exist`);
      if (!/^[A-Za-z]/.test(nested ? nested[2]! : poolid)) throw new Error('pool name must start with a letter');
      cluster.pools.set(poolid, { comment: params.comment || undefined, vms: new Set(), storage: new Set() });
    }),

  'PUT /pools': updatePool,
  'DELETE /pools': deletePool,

  // The deprecated forms by path. read_pool answers index's entry for the pool, `poolid` included, though
  // its `returns` (additionalProperties 0) lists no `poolid` (pve-manager since nested pools, 8.1).
  'GET /pools/{poolid}': ({ cluster, params }) => poolInfo(cluster, params.poolid!, params.type),
  'PUT /pools/{poolid}': updatePool,
  'DELETE /pools/{poolid}': deletePool,
};
