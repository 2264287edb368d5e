import { FerryError } from '../../src/errors';
import { ProxmoxNotFoundError } from '../../src/proxmox';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import { beat } from '../heartbeat';
import type { PveVmWrites } from '../pve-vm-contract';
import { writeIntent } from '../write-intent';
import { privilegedClient } from './privileged';

/** Writes to a VM's slots and options, and removing it; each looks first, so a retry does no second write. */
export function createPveVmWrites(deps: ActivityDeps): PveVmWrites {
  const { pve } = clientsOf(deps);
  return {
    async setNic({ node, vmid, slot, nic }) {
      await pve().nics.ensure(node, vmid, slot, nic);
    },

    async setBootOrder({ node, vmid, order }) {
      await pve().config.ensure(node, vmid, { boot: order });
    },

    async removeDisks({ node, vmid, slots }) {
      for (const slot of slots) await pve().disks.delete(node, vmid, slot);
    },

    async deleteVm({ node, vmid }) {
      const intent = writeIntent();
      // Recorded only while the VM is there: a VM gone before any attempt of this run stays "already gone".
      if (await pve().vms.findById(vmid)) intent.start('delete');
      const { deleted } = await pve().vms.delete(
        node,
        vmid,
        { purge: true, destroyUnreferencedDisks: true },
        { onProgress: intent.beat },
      );
      return { deleted: deleted || intent.startedEarlier('delete') };
    },

    async discardVm({ node, vmid, name }) {
      let config;
      try {
        config = (await pve().config.get(node, vmid)).values;
      } catch (err) {
        if (err instanceof ProxmoxNotFoundError) return { destroyed: false };
        throw err;
      }
      if (config.name !== name)
        throw new FerryError(
          `VM ${vmid} is '${String(config.name)}', not '${name}'; ferry does not destroy it`,
          'policy',
        );
      // The token stops and destroys the VM, disks attached by path and all (PVE asks VM.PowerMgmt and
      // VM.Allocate; destroy frees only the VM's own volumes). Only a VM still locked (a failed live
      // import keeps `lock: import`) needs skiplock, which is root@pam's.
      const locked = config.lock !== undefined;
      const client = locked
        ? privilegedClient(deps, `discarding VM ${vmid} (locked: ${String(config.lock)})`, 'skiplock')
        : pve();
      const skiplock = locked ? { skiplock: true } : {};
      await client.power.stop(node, vmid, { onProgress: beat }, skiplock);
      const result = await client.vms.delete(node, vmid, skiplock, { onProgress: beat });
      return { destroyed: result.deleted };
    },
  };
}
