import { ferryFields } from '../../src/netbox/custom-fields';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import type { ProvisioningActivities } from '../provisioning-contract';
import { writeIntent } from '../write-intent';
import { seenAfter, truthful, writeOutcome } from './netbox-outcome';

/** What provisioning writes back to the NetBox VM: its VMID, and its status once handed over. */
export function createNetboxVmWriteActivities(
  deps: ActivityDeps,
): Pick<ProvisioningActivities, 'recordVmid' | 'markNetboxStaged'> {
  const { netbox } = clientsOf(deps);
  return {
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

    async markNetboxStaged({ netboxId, seen }) {
      const intent = writeIntent();
      intent.start('staged');
      const { outcome } = await netbox().transitionStatus(netboxId, 'planned', 'staged', seen);
      return { outcome: truthful(intent, 'staged', writeOutcome(outcome), 'updated') };
    },
  };
}
