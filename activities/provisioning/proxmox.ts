import { nicIndex } from '../../src/domain/provisioning';
import { FerryError } from '../../src/errors';
import { normalizeMac } from '../../src/netbox/client';
import { parseDiskSize } from '../../src/proxmox/disks';
import { parseNic } from '../../src/proxmox/nics';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import { beat } from '../heartbeat';
import type { ProvisioningActivities } from '../provisioning-contract';

type ProxmoxActivities = Pick<
  ProvisioningActivities,
  'createBareVm' | 'ensureVmAcl' | 'ensureVmDisk' | 'ensureVmNic' | 'ensureVmOptions' | 'readVmMacs' | 'vmPowerState'
>;

/** The Proxmox side of provisioning: the VM, its ACL, each disk and NIC in its slot, its options and power. */
export function createProxmoxActivities(deps: ActivityDeps): ProxmoxActivities {
  const { pve } = clientsOf(deps);
  return {
    async createBareVm(vm) {
      const { created } = await pve().vms.create(vm, { onProgress: beat });
      return { created };
    },

    async ensureVmAcl({ vmid, roles, users, groups }) {
      return pve().acl.ensure({ path: `/vms/${vmid}`, roles, users, groups, propagate: true });
    },

    async ensureVmDisk({ node, vmid, disk }) {
      const client = pve();
      const before = await client.disks.get(node, vmid, disk.slot);
      if (before && !before.volume.startsWith(`${disk.storage}:`)) {
        throw new FerryError(`VM ${vmid} ${disk.slot} holds ${before.volume}, not a disk on ${disk.storage}; ferry does not move or replace disks`, 'policy');
      }
      const { action } = await client.disks.ensure(node, vmid, disk.slot, { storage: disk.storage, sizeGiB: disk.sizeGiB, options: disk.options }, { onProgress: beat });
      const wanted = parseDiskSize(`${disk.sizeGiB}G`);
      const now = await client.disks.get(node, vmid, disk.slot);
      let grown = false;
      if (now?.sizeBytes !== undefined && now.sizeBytes < wanted) {
        grown = (await client.disks.resize(node, vmid, disk.slot, `${disk.sizeGiB}G`, { onProgress: beat })).changed;
      }
      if (action === 'created') return { outcome: 'created' };
      return { outcome: action === 'updated' || grown ? 'updated' : 'unchanged' };
    },

    async ensureVmNic({ node, vmid, nic }) {
      const client = pve();
      const existed = (await client.nics.list(node, vmid))[nic.slot] !== undefined;
      const { changed } = await client.nics.set(node, vmid, nicIndex(nic.slot), {
        model: nic.model,
        bridge: nic.network,
        ...(nic.vlan !== undefined ? { tag: nic.vlan } : {}),
        ...(nic.firewall !== undefined ? { firewall: nic.firewall } : {}),
        ...(nic.mac ? { macaddr: nic.mac } : {}),
      });
      return { outcome: !changed ? 'unchanged' : existed ? 'updated' : 'created' };
    },

    async ensureVmOptions({ node, vmid, options }) {
      return pve().config.ensure(node, vmid, options);
    },

    async readVmMacs({ node, vmid }) {
      const { values } = await pve().config.get(node, vmid);
      return Object.fromEntries(
        Object.entries(values)
          .filter(([key]) => /^net\d+$/.test(key))
          .map(([key, value]) => [key, normalizeMac(parseNic(value).macaddr)]),
      );
    },

    async vmPowerState({ node, vmid }) {
      const vm = await pve().vms.findById(vmid);
      if (!vm || vm.node !== node) return { status: 'absent' };
      return { status: (await pve().power.status(node, vmid)).status };
    },
  };
}
