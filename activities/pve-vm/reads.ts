import { attachedDisks } from '../../src/proxmox';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import type { PveVmReads } from '../pve-vm-contract';

/** Finding and reading a Proxmox VM. */
export function createPveVmReads(deps: ActivityDeps): PveVmReads {
  const { pve } = clientsOf(deps);
  return {
    async findPveVms({ vmid, name }) {
      // Each node's own list too: /cluster/resources lags behind a fresh create.
      const found = (await pve().vms.listEverywhere()).filter((vm) => vm.vmid === vmid || vm.name === name);
      return found.map((vm) => ({ vmid: vm.vmid, name: vm.name, node: vm.node, status: vm.status }));
    },

    async readPveConfig({ node, vmid }) {
      return (await pve().config.get(node, vmid)).values;
    },

    async waitVmVisible({ vmid }) {
      return { visible: (await pve().vms.list()).some((vm) => vm.vmid === vmid) };
    },

    async vmPowerState({ node, vmid }) {
      const vm = await pve().vms.findById(vmid);
      if (!vm || vm.node !== node) return { status: 'absent' };
      return { status: (await pve().power.status(node, vmid)).status };
    },

    async diskSizes({ node, vmid }) {
      const disks = attachedDisks((await pve().config.get(node, vmid)).values);
      return Object.fromEntries(Object.entries(disks).map(([slot, disk]) => [slot, disk.sizeBytes ?? -1]));
    },
  };
}
