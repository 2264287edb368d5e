import { changeSettings } from '../../src/config/change-settings';
import { parseBaseline } from '../../src/domain/change';
import { FerryError } from '../../src/errors';
import { vmRecordWithHardware } from '../../src/netbox/records';
import type { ChangeActivities } from '../change-contract';
import type { ActivityDeps } from '../deps';

/** Day 2's NetBox side: the settings, a VM's record with its hardware and baseline, and what a run did. */
export function createChangeActivities(deps: ActivityDeps): ChangeActivities {
  const netbox = () => {
    if (!deps.netbox) throw new FerryError('day 2 changes need NetBox: set netbox.url and NETBOX_TOKEN', 'invalid');
    return deps.netbox;
  };
  return {
    async loadChangeSettings() {
      return changeSettings(deps.config, { netbox: Boolean(deps.netbox), dns: Boolean(deps.dns) });
    },

    async readChangeRecord({ netboxId }) {
      const nb = netbox();
      const { value: vm } = await nb.getVirtualMachine(netboxId);
      const [interfaces, disks, addresses] = await Promise.all([
        nb.listInterfaces(netboxId),
        nb.listVirtualDisks(netboxId),
        nb.addressesOfVms([netboxId]),
      ]);
      const stored = parseBaseline((vm.custom_fields as Record<string, unknown> | undefined)?.ferry_applied);
      const bySlot: Record<string, string> = {};
      for (const ip of addresses) {
        const iface = interfaces.find((i) => i.id === ip.assigned_object_id);
        if (iface && !(iface.name in bySlot)) bySlot[iface.name] = ip.address;
      }
      return {
        record: vmRecordWithHardware(vm, interfaces, disks),
        ...(stored.ok ? (stored.baseline ? { baseline: stored.baseline } : {}) : { baselineProblem: stored.problem }),
        addresses: bySlot,
      };
    },

    async recordChange({ netboxId, baseline, journal }) {
      const nb = netbox();
      await nb.updateVirtualMachine(netboxId, { custom_fields: { ferry_applied: baseline } });
      await nb.addVmJournalEntry(netboxId, journal.kind, journal.comments);
    },
  };
}
