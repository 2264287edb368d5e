import type { NetboxVmRecord } from '../../src/domain/provisioning';
import { ferryFields } from '../../src/netbox/custom-fields';
import type { Outcome } from '../../src/netbox/client';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import type { ProvisioningActivities, WriteOutcome } from '../provisioning-contract';

type NetboxActivities = Pick<
  ProvisioningActivities,
  'readNetboxVm' | 'listPlannedVms' | 'recordVmid' | 'ensureNetboxInterface' | 'assignNetboxIp' | 'markNetboxStaged'
>;

function writeOutcome(outcome: Outcome): WriteOutcome {
  return outcome === 'created' || outcome === 'updated' ? outcome : 'unchanged';
}

/** The NetBox side of provisioning: read the record, write back its VMID, interfaces, address and status. */
export function createNetboxActivities(deps: ActivityDeps): NetboxActivities {
  const { netbox } = clientsOf(deps);
  return {
    async readNetboxVm({ netboxId }): Promise<NetboxVmRecord> {
      const { value: vm } = await netbox().getVirtualMachine(netboxId);
      return {
        id: vm.id,
        name: vm.name,
        status: vm.status.value,
        ...(vm.cluster?.name ? { cluster: vm.cluster.name } : {}),
        ...(typeof vm.vcpus === 'number' ? { vcpus: vm.vcpus } : {}),
        ...(typeof vm.memory === 'number' ? { memoryMB: vm.memory } : {}),
        ...(typeof vm.disk === 'number' ? { diskMB: vm.disk } : {}),
        tags: vm.tags.map((t) => t.slug),
        fields: ferryFields(vm),
      };
    },

    async listPlannedVms({ cluster, tag }) {
      const vms = await netbox().listVirtualMachines({ status: 'planned', cluster, tag });
      return vms.map((vm) => ({ netboxId: vm.id, name: vm.name })).sort((a, b) => a.netboxId - b.netboxId);
    },

    async recordVmid({ netboxId, vmid }) {
      const current = await netbox().getVirtualMachine(netboxId);
      const held = ferryFields(current.value).vmid;
      if (held !== undefined) return { vmid: held, outcome: 'unchanged' };
      await netbox().updateVirtualMachine(netboxId, { custom_fields: { ferry_vmid: vmid } }, { ifMatch: current.etag });
      return { vmid, outcome: 'updated' };
    },

    async ensureNetboxInterface({ netboxId, name, mac }) {
      const iface = await netbox().ensureInterface(netboxId, name, { enabled: true });
      const primary = await netbox().ensurePrimaryMac(iface.value.id, mac);
      return { interfaceId: iface.value.id, interface: writeOutcome(iface.outcome), mac: writeOutcome(primary.outcome) };
    },

    async assignNetboxIp({ netboxId, interfaceId, prefix, dnsName }) {
      const client = netbox();
      const found = await client.getPrefix(prefix);
      const ip = await client.allocateIp(found, interfaceId, { ...(dnsName ? { dnsName } : {}), description: 'allocated by ferry' });
      const primary = await client.setPrimaryIp4(netboxId, ip.value.id);
      return { address: ip.value.address, ipId: ip.value.id, outcome: writeOutcome(ip.outcome), primary: writeOutcome(primary) };
    },

    async markNetboxStaged({ netboxId }) {
      const { outcome } = await netbox().transitionStatus(netboxId, 'planned', 'staged');
      return { outcome: writeOutcome(outcome) };
    },
  };
}
