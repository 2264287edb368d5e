import { lxcStatus } from '../guest-stats';
import type { RouteTable } from './types';

/** A node's containers (pve-container's vmlist): listed with their figures; containers are not otherwise simulated. */
export const lxcRoutes: RouteTable = {
  'GET /nodes/{node}/lxc': ({ cluster, params, perm }) => {
    cluster.requireNode(params.node!);
    return cluster.containers
      .filter((ct) => ct.node === params.node && perm.has(`/vms/${ct.vmid}`, ['VM.Audit']))
      .map((ct) => lxcStatus(cluster, ct));
  },
};
