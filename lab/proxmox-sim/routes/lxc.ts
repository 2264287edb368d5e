import { lxcStatus } from '../guest-stats';
import type { RouteTable } from './types';

/** A node's containers (pve-container's vmlist): listed with their figures; containers are not otherwise simulated. */
export const lxcRoutes: RouteTable = {
  'GET /nodes/{node}/lxc': ({ cluster, params }) => {
    cluster.requireNode(params.node!);
    return cluster.containers.filter((ct) => ct.node === params.node).map((ct) => lxcStatus(cluster, ct));
  },
};
