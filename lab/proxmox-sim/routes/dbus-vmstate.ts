import { paramError } from '../api-error';
import type { RouteTable } from './types';

/**
 * `POST …/dbus-vmstate` (PVE 9; qemu-server API2/Qemu.pm dbus_vmstate): only on the node the VM runs on
 * (`localhost` or the local node's name), and only for a running VM. PVE then starts or stops the
 * pve-dbus-vmstate helper that carries the host's conntrack entries through a live migration; the
 * simulator has no conntrack state to carry, so after the checks there is nothing to do.
 */
export const dbusVmstateRoutes: RouteTable = {
  'POST /nodes/{node}/qemu/{vmid}/dbus-vmstate': ({ cluster, params }) => {
    const nodename = cluster.nodes[0]!; // the node /cluster/status marks local
    if (params.node !== 'localhost' && params.node !== nodename)
      throw paramError({ node: `node needs to be 'localhost' or local hostname '${nodename}'` });
    const vm = cluster.vms.get(Number(params.vmid));
    if (!vm || vm.node !== nodename || vm.status !== 'running')
      throw paramError({ node: `VM ${params.vmid} not running locally on node '${nodename}'` });
    return null;
  },
};
