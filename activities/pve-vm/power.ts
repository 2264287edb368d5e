import { ProxmoxTaskError } from '../../src/proxmox';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import { beat } from '../heartbeat';
import type { PveVmPower } from '../pve-vm-contract';
import { writeIntent } from '../write-intent';

/**
 * A VM's power, each waiting on its task. A shutdown is recorded before it is sent (write-intent.ts): a
 * retry that finds the VM stopped after an earlier attempt of this run sent it reports it done, not "already".
 */
export function createPveVmPower(deps: ActivityDeps): PveVmPower {
  const { pve } = clientsOf(deps);
  return {
    async startVm({ node, vmid }) {
      await pve().power.start(node, vmid, { onProgress: beat });
    },

    async stopVm({ node, vmid }) {
      await pve().power.stop(node, vmid, { onProgress: beat });
    },

    async shutdownVm({ node, vmid, timeoutMs }) {
      const intent = writeIntent();
      if ((await pve().power.status(node, vmid)).status === 'stopped')
        return { result: intent.startedEarlier('shutdown') ? 'shut-down' : 'already-stopped' };
      try {
        intent.start('shutdown');
        await pve().power.shutdown(
          node,
          vmid,
          { timeoutS: Math.max(1, Math.ceil(timeoutMs / 1000)), forceStop: false },
          { onProgress: intent.beat },
        );
        return { result: 'shut-down' };
      } catch (err) {
        if (err instanceof ProxmoxTaskError && /timeout/i.test(err.exitstatus)) return { result: 'timed-out' };
        throw err;
      }
    },
  };
}
