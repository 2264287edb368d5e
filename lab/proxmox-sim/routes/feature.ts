import { fail } from '../api-error';
import type { Cluster } from '../cluster';
import { DISK_KEY, volumeOf } from '../vm-config';
import { configHasFeature } from '../vm-drives';
import type { VolumeFeature } from '../volume-features';
import type { RouteTable } from './types';

/**
 * `GET /nodes/{node}/qemu/{vmid}/feature` (qemu-server's vm_feature): whether every disk of the VM (or
 * of one of its snapshots) has the feature (`snapshot`, `clone` = linked, `copy` = full), and the nodes
 * that see all its volumes (shared_nodes: a volume on a local storage — a CD-ROM's ISO too — leaves only
 * the VM's own node).
 */
function sharedNodes(cluster: Cluster, node: string, config: Record<string, string>): string[] {
  let nodes = [...cluster.nodes];
  for (const [key, value] of Object.entries(config)) {
    if (!DISK_KEY.test(key)) continue;
    const storage = cluster.storages.get(/^([^:/]+):/.exec(volumeOf(value))?.[1] ?? '');
    if (storage && !storage.shared) nodes = nodes.filter((n) => n === node);
  }
  return nodes;
}

export const featureRoutes: RouteTable = {
  'GET /nodes/{node}/qemu/{vmid}/feature': ({ cluster, params }) => {
    const vm = cluster.vm(params.node!, Number(params.vmid));
    let config = vm.config;
    if (params.snapname) {
      const snap = vm.snapshots.get(params.snapname);
      if (!snap) throw fail(`snapshot '${params.snapname}' does not exist`);
      config = snap;
    }
    return {
      hasFeature: configHasFeature(cluster, vm.node, config, params.feature as VolumeFeature, params.snapname) ? 1 : 0,
      nodes: sharedNodes(cluster, vm.node, config),
    };
  },
};
