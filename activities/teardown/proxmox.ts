import { ProxmoxTaskError } from '../../src/proxmox';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import { beat } from '../heartbeat';
import type { TeardownActivities } from '../provisioning-contract';

/** The Proxmox side of a teardown: shut the guest down, delete the VM. */
export function createProxmoxTeardownActivities(deps: ActivityDeps): Pick<TeardownActivities, 'shutdownVm' | 'deleteVm'> {
  const { pve } = clientsOf(deps);
  return {
    async shutdownVm({ node, vmid, timeoutMs }) {
      if ((await pve().power.status(node, vmid)).status === 'stopped') return { result: 'already-stopped' };
      try {
        await pve().power.shutdown(node, vmid, { timeoutS: Math.max(1, Math.ceil(timeoutMs / 1000)), forceStop: false }, { onProgress: beat });
        return { result: 'shut-down' };
      } catch (err) {
        if (err instanceof ProxmoxTaskError && /timeout/i.test(err.exitstatus)) return { result: 'timed-out' };
        throw err;
      }
    },

    async deleteVm({ node, vmid }) {
      const { deleted } = await pve().vms.delete(node, vmid, { purge: true, destroyUnreferencedDisks: true }, { onProgress: beat });
      return { deleted };
    },
  };
}
