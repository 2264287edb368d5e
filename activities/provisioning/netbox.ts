import type { NetboxVmRecord } from '../../src/domain/provisioning';
import { ferryFields } from '../../src/netbox/custom-fields';
import type { Outcome } from '../../src/netbox/client';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import type { ProvisioningActivities, WriteOutcome } from '../provisioning-contract';
import { writeIntent, type WriteIntent } from '../write-intent';
import { PrefixCache } from './prefix-cache';

type NetboxActivities = Pick<
  ProvisioningActivities,
  'readNetboxVm' | 'listPlannedVms' | 'recordVmid' | 'ensureNetboxInterface' | 'assignNetboxIp' | 'markNetboxStaged'
>;

function writeOutcome(outcome: Outcome): WriteOutcome {
  return outcome === 'created' || outcome === 'updated' ? outcome : 'unchanged';
}

/** The outcome of a write this run may have done in an earlier attempt whose answer was lost (write-intent.ts). */
function truthful(intent: WriteIntent, write: string, outcome: WriteOutcome, earlierDid: WriteOutcome): WriteOutcome {
  return outcome === 'unchanged' && intent.startedEarlier(write) ? earlierDid : outcome;
}

/** The NetBox side of provisioning: read the record, write back its VMID, interfaces, address and status. */
export function createNetboxActivities(deps: ActivityDeps): NetboxActivities {
  const { netbox } = clientsOf(deps);
  const prefixes = new PrefixCache();
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
      const intent = writeIntent();
      const current = await netbox().getVirtualMachine(netboxId);
      const held = ferryFields(current.value).vmid;
      if (held !== undefined) return { vmid: held, outcome: held === vmid && intent.startedEarlier('vmid') ? 'updated' : 'unchanged' };
      intent.start('vmid');
      await netbox().updateVirtualMachine(netboxId, { custom_fields: { ferry_vmid: vmid } }, { ifMatch: current.etag });
      return { vmid, outcome: 'updated' };
    },

    async ensureNetboxInterface({ netboxId, name, mac }) {
      const intent = writeIntent();
      intent.start('interface');
      const iface = await netbox().ensureInterface(netboxId, name, { enabled: true });
      intent.start('mac');
      const primary = await netbox().ensurePrimaryMac(iface.value.id, mac, { freshInterface: iface.outcome === 'created' });
      return {
        interfaceId: iface.value.id,
        interface: truthful(intent, 'interface', writeOutcome(iface.outcome), 'created'),
        mac: truthful(intent, 'mac', writeOutcome(primary.outcome), 'created'),
      };
    },

    async assignNetboxIp({ netboxId, interfaceId, prefix, dnsName, newInterface }) {
      const client = netbox();
      const intent = writeIntent();
      const found = await prefixes.get(client, prefix);
      const freshInterface = newInterface === true && !intent.startedEarlier('ip');
      intent.start('ip');
      const fields = { ...(dnsName ? { dnsName } : {}), description: 'allocated by ferry' };
      const ip = await client.allocateIp(found, interfaceId, fields, { freshInterface }).catch((err: unknown) => {
        prefixes.forget(prefix);
        throw err;
      });
      intent.start('primary-ip');
      const primary = await client.setPrimaryIp4(netboxId, ip.value.id, { freshIp: ip.outcome === 'created' });
      return {
        address: ip.value.address,
        ipId: ip.value.id,
        outcome: truthful(intent, 'ip', writeOutcome(ip.outcome), 'created'),
        primary: truthful(intent, 'primary-ip', writeOutcome(primary), 'updated'),
      };
    },

    async markNetboxStaged({ netboxId }) {
      const intent = writeIntent();
      intent.start('staged');
      const { outcome } = await netbox().transitionStatus(netboxId, 'planned', 'staged');
      return { outcome: truthful(intent, 'staged', writeOutcome(outcome), 'updated') };
    },
  };
}
