import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import type { ProvisioningActivities } from '../provisioning-contract';
import { createdWithMark, runMarked } from '../run-mark';
import { writeIntent } from '../write-intent';

/**
 * The provisioned VM on Proxmox and its ACL. Each write is recorded before it is sent (write-intent.ts), so a
 * retry that finds it done by an earlier attempt reports it as done by this run.
 */
export function createBareVmActivities(
  deps: ActivityDeps,
): Pick<ProvisioningActivities, 'createBareVm' | 'ensureVmAcl'> {
  const { pve } = clientsOf(deps);
  return {
    async createBareVm(vm) {
      const intent = writeIntent();
      const { description, mark } = runMarked(vm.description);
      intent.start('create');
      const { created } = await pve().vms.create({ ...vm, description }, { onProgress: intent.beat });
      if (created || intent.startedEarlier('create')) return { created: true };
      return { created: await createdWithMark(pve(), vm.node, vm.vmid, mark) };
    },

    async ensureVmAcl({ vmid, roles, users, groups }) {
      const intent = writeIntent();
      intent.start('acl');
      const { changed } = await pve().acl.ensure({ path: `/vms/${vmid}`, roles, users, groups, propagate: true });
      return { changed: changed || intent.startedEarlier('acl') };
    },
  };
}
