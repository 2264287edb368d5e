import { qemuVmStatus } from '../guest-stats';
import type { RouteTable, SimRequest } from './types';

/**
 * qemu-server's read-only listings: a node's VMs (vmstatus), the directory indexes of a VM and of its
 * status commands (snapshots: snapshots.ts).
 */
const VM_SUBDIRS = [
  'config',
  'cloudinit',
  'pending',
  'status',
  'unlink',
  'vncproxy',
  'termproxy',
  'migrate',
  'resize',
  'move',
  'rrd',
  'rrddata',
  'monitor',
  'agent',
  'snapshot',
  'spiceproxy',
  'sendkey',
  'firewall',
  'mtunnel',
  'remote_migrate',
];
const STATUS_SUBDIRS = ['current', 'start', 'stop', 'reset', 'shutdown', 'suspend', 'reboot'];

const vmOf = (req: SimRequest) => req.cluster.vm(req.params.node!, Number(req.params.vmid));

export const qemuIndexRoutes: RouteTable = {
  'GET /nodes/{node}/qemu': ({ cluster, params, perm }) => {
    cluster.requireNode(params.node!);
    return [...cluster.vms.values()]
      .filter((vm) => vm.node === params.node && perm.has(`/vms/${vm.vmid}`, ['VM.Audit']))
      .map((vm) => qemuVmStatus(cluster, vm, params.full === '1'));
  },

  // vmdiridx does not load the config: it answers for any VMID.
  'GET /nodes/{node}/qemu/{vmid}': ({ cluster, params }) => {
    cluster.requireNode(params.node!);
    return VM_SUBDIRS.map((subdir) => ({ subdir }));
  },

  'GET /nodes/{node}/qemu/{vmid}/status': (req) => {
    vmOf(req); // "test if VM exists"
    return STATUS_SUBDIRS.map((subdir) => ({ subdir }));
  },
};
