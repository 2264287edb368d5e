import { cloudInitPendingItems, recordCloudInit } from '../cloud-init-pending';
import type { SimVm } from '../cluster';
import { cloudInitDrive, nocloudNetwork, nocloudUserData, writeCloudInitDrive } from '../qemu/cloud-init';
import type { RouteTable, SimRequest } from './types';
import { createHash } from 'node:crypto';

/**
 * `…/cloudinit` and `…/cloudinit/dump` (qemu-server's cloudinit_pending, cloudinit_update and
 * cloudinit_generated_config_dump): the cloud-init settings with the values the drive was generated
 * with and the pending ones (cloud-init-pending.ts); regenerating the NoCloud drive now (the config lock
 * held, as at start); and the generated user-data, network-config or meta-data as text.
 */
const vmOf = (req: SimRequest): SimVm => req.cluster.vm(req.params.node!, Number(req.params.vmid));

export const cloudinitRoutes: RouteTable = {
  'GET /nodes/{node}/qemu/{vmid}/cloudinit': (req) => cloudInitPendingItems(vmOf(req)),

  'PUT /nodes/{node}/qemu/{vmid}/cloudinit': async (req) => {
    const vm = vmOf(req);
    await vm.flock.run(req.cluster.settings.flockTimeoutMs, async () => {
      req.cluster.checkLock(vm);
      const drive = cloudInitDrive(vm.vmid, vm.config);
      if (!drive) return; // no cloud-init drive: nothing to regenerate
      const volume = req.cluster.storages.resolve(drive.volid, vm.node);
      await writeCloudInitDrive(vm.vmid, vm.config, { path: volume.file, format: volume.format as 'raw' });
      recordCloudInit(vm);
    });
    return null;
  },

  'GET /nodes/{node}/qemu/{vmid}/cloudinit/dump': (req) => {
    const vm = vmOf(req);
    const user = nocloudUserData(vm.vmid, vm.config);
    if (req.params.type === 'user') return user;
    const network = nocloudNetwork(vm.config);
    if (req.params.type === 'network') return network;
    return `instance-id: ${createHash('sha1')
      .update(user + network)
      .digest('hex')}\n`;
  },
};
