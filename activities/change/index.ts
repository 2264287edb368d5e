import { activityInfo } from '@temporalio/activity';
import { changeSettings } from '../../src/config/change-settings';
import { recordSideOf } from '../../src/domain/change';
import { FerryError } from '../../src/errors';
import type { NetboxClient, VmWithHardware } from '../../src/netbox/client';
import { CoalescedReads } from '../../src/netbox/coalesced-reads';
import { NetboxError } from '../../src/netbox/errors';
import { vmRecordWithHardware } from '../../src/netbox/records';
import type { ChangeActivities, ChangeRecord } from '../change-contract';
import type { ActivityDeps } from '../deps';

/** Day 2's NetBox side: the settings, a VM's record with its hardware and baseline, and what a run did. */
export function createChangeActivities(deps: ActivityDeps): ChangeActivities {
  const netbox = () => {
    if (!deps.netbox) throw new FerryError('day 2 changes need NetBox: set netbox.url and NETBOX_TOKEN', 'invalid');
    return deps.netbox;
  };
  // Runs that read at the same time share NetBox requests (200 runs started together: a few list reads).
  let records: CoalescedReads<number, VmWithHardware> | undefined;
  const recordsOf = (nb: NetboxClient) =>
    (records ??= new CoalescedReads(
      (ids) => nb.vmsWithHardware(ids),
      (id) => new NetboxError(`NetBox has no virtual machine with id ${id}`, 'not-found', { status: 404 }),
    ));
  return {
    async loadChangeSettings() {
      return changeSettings(deps.config, { netbox: Boolean(deps.netbox), dns: Boolean(deps.dns) });
    },

    async readChangeRecord({ netboxId }) {
      return changeRecordOf(await recordsOf(netbox()).read(netboxId));
    },

    async recordChange({ netboxId, baseline, journal }) {
      const nb = netbox();
      await nb.updateVirtualMachine(netboxId, { custom_fields: { ferry_applied: baseline } });
      // A retry may follow a write whose answer was lost: only then look for the entry before adding it.
      await nb.addVmJournalEntry(netboxId, journal.kind, journal.comments, { mayExist: activityInfo().attempt > 1 });
    },
  };
}

function changeRecordOf({ vm, interfaces, disks, addresses }: VmWithHardware): ChangeRecord {
  const bySlot: Record<string, string> = {};
  for (const ip of addresses) {
    const iface = interfaces.find((i) => i.id === ip.assigned_object_id);
    if (iface && !(iface.name in bySlot)) bySlot[iface.name] = ip.address;
  }
  const stored = (vm.custom_fields as Record<string, unknown> | undefined)?.ferry_applied;
  return { ...recordSideOf(vmRecordWithHardware(vm, interfaces, disks), stored), addresses: bySlot };
}
