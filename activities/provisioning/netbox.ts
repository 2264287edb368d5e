import type { NetboxVmRecord, PlannedRecord, SeenVersion } from '../../src/domain/provisioning';
import { ferryFields } from '../../src/netbox/custom-fields';
import { vmRecord } from '../../src/netbox/records';
import type { Outcome } from '../../src/netbox/client';
import type { VirtualMachine } from '../../src/netbox/schemas';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import type { ProvisioningActivities, WriteOutcome } from '../provisioning-contract';
import { writeIntent, type WriteIntent } from '../write-intent';
import { PrefixCache } from './prefix-cache';

type NetboxActivities = Pick<
  ProvisioningActivities,
  | 'readNetboxVm'
  | 'listPlannedVms'
  | 'readPlannedVms'
  | 'recordVmid'
  | 'ensureNetboxInterface'
  | 'assignNetboxIp'
  | 'markNetboxStaged'
>;

function writeOutcome(outcome: Outcome): WriteOutcome {
  return outcome === 'created' || outcome === 'updated' ? outcome : 'unchanged';
}

/** The outcome of a write this run may have done in an earlier attempt whose answer was lost (write-intent.ts). */
function truthful(intent: WriteIntent, write: string, outcome: WriteOutcome, earlierDid: WriteOutcome): WriteOutcome {
  return outcome === 'unchanged' && intent.startedEarlier(write) ? earlierDid : outcome;
}

/** The VM's version after a write that answered with an ETag (NetBox 4.6+). */
function seenAfter(etag: string | undefined, status: string): { seen?: SeenVersion } {
  return etag ? { seen: { etag, status } } : {};
}

function vmRecordOrProblem(vm: VirtualMachine): PlannedRecord {
  try {
    return vmRecord(vm);
  } catch (err) {
    return { id: vm.id, name: vm.name, problem: err instanceof Error ? err.message : String(err) };
  }
}

/** The NetBox side of provisioning: read the record, write back its VMID, interfaces, address and status. */
export function createNetboxActivities(deps: ActivityDeps): NetboxActivities {
  const { netbox } = clientsOf(deps);
  const prefixes = new PrefixCache();
  return {
    async readNetboxVm({ netboxId }): Promise<NetboxVmRecord> {
      const { value, etag } = await netbox().getVirtualMachine(netboxId);
      return { ...vmRecord(value), ...(etag ? { etag } : {}) };
    },

    async listPlannedVms({ cluster, tag }) {
      const vms = await netbox().listVirtualMachines({ status: 'planned', cluster, tag });
      return vms.map((vm) => ({ netboxId: vm.id, name: vm.name })).sort((a, b) => a.netboxId - b.netboxId);
    },

    async readPlannedVms({ cluster, tag }) {
      const vms = await netbox().listVirtualMachines({ status: 'planned', cluster, tag });
      // A record with invalid ferry fields is left to its own workflow, which fails with the reason.
      return vms.map((vm) => vmRecordOrProblem(vm)).sort((a, b) => a.id - b.id);
    },

    async recordVmid({ netboxId, vmid, seen }) {
      const intent = writeIntent();
      // The record as this run read it, without a VMID: written without a second read if unchanged since.
      if (seen && !intent.startedEarlier('vmid')) {
        intent.start('vmid');
        const written = await netbox().updateVirtualMachineIfUnchanged(
          netboxId,
          { custom_fields: { ferry_vmid: vmid } },
          seen.etag,
        );
        if (written) return { vmid, outcome: 'updated', ...seenAfter(written.etag, written.value.status.value) };
      }
      const current = await netbox().getVirtualMachine(netboxId);
      const held = ferryFields(current.value).vmid;
      if (held !== undefined)
        return { vmid: held, outcome: held === vmid && intent.startedEarlier('vmid') ? 'updated' : 'unchanged' };
      intent.start('vmid');
      const written = await netbox().updateVirtualMachine(
        netboxId,
        { custom_fields: { ferry_vmid: vmid } },
        { ifMatch: current.etag },
      );
      return { vmid, outcome: 'updated', ...seenAfter(written.etag, written.value.status.value) };
    },

    async ensureNetboxInterface({ netboxId, name, mac, vmHadNone }) {
      const intent = writeIntent();
      // A VM read without interfaces has none to look for, unless an earlier attempt made this one.
      const none = vmHadNone === true && !intent.startedEarlier('interface');
      intent.start('interface');
      const iface = await netbox().ensureInterface(netboxId, name, { enabled: true }, { vmHadNone: none });
      intent.start('mac');
      const primary = await netbox().ensurePrimaryMac(iface.value.id, mac, {
        freshInterface: iface.outcome === 'created',
      });
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
        primary: truthful(intent, 'primary-ip', writeOutcome(primary.outcome), 'updated'),
        ...(primary.vm ? seenAfter(primary.vm.etag, primary.vm.value.status.value) : {}),
      };
    },

    async markNetboxStaged({ netboxId, seen }) {
      const intent = writeIntent();
      intent.start('staged');
      const { outcome } = await netbox().transitionStatus(netboxId, 'planned', 'staged', seen);
      return { outcome: truthful(intent, 'staged', writeOutcome(outcome), 'updated') };
    },
  };
}
