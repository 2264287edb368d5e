import {
  placeSpecs,
  specFromRecord,
  specPlacement,
  type PlannedRecord,
  type PlannedVm,
  type ProvisioningSettings,
  type ProvisionSpec,
} from '../../src/domain/provisioning';
import { reads } from '../vm/proxies';

/**
 * provisionPlanned's placement: the batch's records are read, the cluster's room once, and every VM
 * placed together (one accounting of room, the same nodes for the same facts). Returns the node each
 * placed VM's workflow is given; a VM that does not fit is marked failed with the numbers and not
 * started. Records that cannot be built are left to their own workflow, which says why.
 */
export async function placePlanned(
  vms: PlannedVm[],
  settings: ProvisioningSettings,
  listed: PlannedRecord[],
): Promise<Map<number, string>> {
  const nodes = new Map<number, string>();
  if (vms.length === 0) return nodes;
  const specs: ProvisionSpec[] = [];
  for (const record of listed) {
    if ('problem' in record) continue;
    const built = specFromRecord(record, settings.defaults);
    if (built.ok) specs.push(built.spec);
  }
  const exclude = specs.flatMap((s) => (s.vmid !== undefined ? [s.vmid] : []));
  const room = await reads.readClusterCapacity.executeWithOptions(
    { summary: `read Proxmox capacity to place ${specs.length} VMs` },
    [{ exclude }],
  );
  const placement = placeSpecs(room, specs);
  for (const spec of specs) {
    const outcome = specPlacement(placement, spec);
    const vm = vms.find((v) => v.netboxId === spec.netboxId)!;
    if (outcome.ok) {
      nodes.set(vm.netboxId, outcome.node);
    } else {
      vm.state = 'finished';
      vm.outcome = 'failed';
      vm.error = `${spec.name} does not fit: ${outcome.reason}. Not started, nothing was created.`;
    }
  }
  return nodes;
}
