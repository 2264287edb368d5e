import { loadSubset } from '../schema/subset';
import type { RouteTable } from '../routes/types';
import { haConfig } from './state';

/**
 * pve-ha-manager's API2/HA/Status.pm beside status/current: the index (the methods this version has),
 * and manager_status, the CRM's state file with the quorum and each node's LRM status. Without HA
 * resources no CRM has written its state: an empty manager_status, as on a cluster that never used HA.
 */
export const haStatusRoutes: RouteTable = {
  'GET /cluster/ha/status': ({ cluster }) => {
    const subset = loadSubset(cluster.flavour);
    const has = (name: string) =>
      subset.endpoints[`/cluster/ha/status/${name}`] !== undefined ||
      subset.unsimulated.some((r) => r.endsWith(` /cluster/ha/status/${name}`));
    return ['current', 'manager_status', 'disarm-ha', 'arm-ha'].filter(has).map((name) => ({ name }));
  },

  'GET /cluster/ha/status/manager_status': ({ cluster }) => {
    const [master] = cluster.nodes;
    const quorum = { node: master, quorate: 1 };
    const ha = haConfig(cluster);
    if (ha.resources.size === 0) return { manager_status: {}, quorum };
    const now = Math.floor(Date.now() / 1000);
    const service_status = Object.fromEntries(
      [...ha.resources].map(([sid, r]) => {
        const vm = cluster.vms.get(Number(sid.split(':')[1]));
        const state =
          r.state === 'disabled' || r.state === 'stopped' ? 'stopped' : r.state === 'ignored' ? 'ignored' : 'started';
        return [sid, { node: vm?.node ?? master, state, uid: sid.replace(/\W/g, '') }];
      }),
    );
    const node_status = Object.fromEntries(cluster.nodes.map((n) => [n, 'online']));
    const lrm_status = Object.fromEntries(
      cluster.nodes.map((n) => [n, { mode: 'active', results: {}, state: 'wait_for_agent_lock', timestamp: now }]),
    );
    return {
      manager_status: { master_node: master, node_status, service_status, timestamp: now },
      quorum,
      lrm_status,
    };
  },
};
