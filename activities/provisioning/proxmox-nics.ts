import { nicIndex, pveNicOf } from '../../src/domain/provisioning';
import { normalizeMac } from '../../src/netbox/client';
import { parseNic } from '../../src/proxmox/nics';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import type { ProvisioningActivities } from '../provisioning-contract';
import { writeIntent } from '../write-intent';

/** Each NIC of the provisioned VM in its slot, and the MACs Proxmox gave them. */
export function createVmNicActivities(deps: ActivityDeps): Pick<ProvisioningActivities, 'ensureVmNic' | 'readVmMacs'> {
  const { pve } = clientsOf(deps);
  return {
    async ensureVmNic({ node, vmid, nic }) {
      const client = pve();
      const intent = writeIntent();
      const existed = (await client.nics.list(node, vmid))[nic.slot] !== undefined;
      // Only a NIC this run adds to an empty slot is recorded: whether an existing one differs is decided inside set().
      if (!existed) intent.start('create-nic');
      const { changed } = await client.nics.set(node, vmid, nicIndex(nic.slot), pveNicOf(nic));
      if (intent.startedEarlier('create-nic')) return { outcome: 'created' };
      return { outcome: !changed ? 'unchanged' : existed ? 'updated' : 'created' };
    },

    async readVmMacs({ node, vmid }) {
      const { values } = await pve().config.get(node, vmid);
      return Object.fromEntries(
        Object.entries(values)
          .filter(([key]) => /^net\d+$/.test(key))
          .map(([key, value]) => [key, normalizeMac(parseNic(value).macaddr)]),
      );
    },
  };
}
