import { fail } from '../api-error';
import { guestResource } from '../guest-stats';
import type { RouteTable } from './types';

/**
 * Resource pools (pve-manager's API2/Pool.pm): the list, one pool with its members (`poolid=`), and
 * creating one. VMs join a pool when created with `pool=`, and leave it when destroyed.
 */
export const poolRoutes: RouteTable = {
  'GET /pools': ({ cluster, params }) => {
    const poolid = params.poolid;
    if (poolid === undefined) {
      return [...cluster.pools.keys()].sort().map((id) => ({ poolid: id, ...(cluster.pools.get(id)!.comment !== undefined ? { comment: cluster.pools.get(id)!.comment } : {}) }));
    }
    const pool = cluster.pools.get(poolid);
    if (!pool) throw fail(`pool '${poolid}' does not exist`);
    const members = [...pool.vms]
      .sort((a, b) => String(a).localeCompare(String(b))) // Perl's sort of the VMIDs as strings
      .map((vmid) => {
        const vm = cluster.vms.get(vmid);
        const ct = cluster.containers.find((c) => c.vmid === vmid);
        return vm ? guestResource(cluster, { kind: 'qemu', vm }) : ct ? guestResource(cluster, { kind: 'lxc', ct }) : undefined;
      })
      .filter((m): m is Record<string, unknown> => m !== undefined && (params.type === undefined || m.type === params.type));
    return [{ poolid, members, ...(pool.comment !== undefined ? { comment: pool.comment } : {}) }];
  },

  'POST /pools': ({ cluster, params }) => {
    const poolid = params.poolid!;
    if (cluster.pools.has(poolid)) throw fail(`create pool failed: pool '${poolid}' already exists`);
    const nested = /^(.*)\/([^/]+)$/.exec(poolid);
    if (nested && !cluster.pools.has(nested[1]!)) throw fail(`create pool failed: parent '${nested[1]}' of pool '${poolid}' does not exist`);
    if (!/^[A-Za-z]/.test(nested ? nested[2]! : poolid)) throw fail('create pool failed: pool name must start with a letter');
    cluster.pools.set(poolid, { comment: params.comment || undefined, vms: new Set() });
    return null;
  },
};
