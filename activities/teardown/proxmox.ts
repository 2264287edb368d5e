import { ProxmoxTaskError } from '../../src/proxmox';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import type { TeardownActivities } from '../provisioning-contract';
import { writeIntent } from '../write-intent';

/**
 * The Proxmox side of a teardown: shut the guest down, delete the VM. Each write is recorded before it
 * is sent (write-intent.ts): a retry that finds the VM stopped or gone after an earlier attempt of this
 * run sent the shutdown or the delete reports it done, not "already".
 */
export function createProxmoxTeardownActivities(
  deps: ActivityDeps,
): Pick<TeardownActivities, 'shutdownVm' | 'deleteVm'> {
  const { pve } = clientsOf(deps);
  return {
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
  };
}
