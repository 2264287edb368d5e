import type { NetboxVmRecord, PlannedRecord } from '../../src/domain/provisioning';
import { vmRecord } from '../../src/netbox/records';
import type { VirtualMachine } from '../../src/netbox/schemas';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import type { ProvisioningActivities } from '../provisioning-contract';

/** The NetBox records provisioning starts from: one VM, or the planned ones of a cluster or tag. */
export function createNetboxReadActivities(
  deps: ActivityDeps,
): Pick<ProvisioningActivities, 'readNetboxVm' | 'listPlannedVms' | 'readPlannedVms'> {
  const { netbox } = clientsOf(deps);
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
  };
}

/** The planned record, or why its ferry fields are invalid. */
function vmRecordOrProblem(vm: VirtualMachine): PlannedRecord {
  try {
    return vmRecord(vm);
  } catch (err) {
    return { id: vm.id, name: vm.name, problem: err instanceof Error ? err.message : String(err) };
  }
}
