import { provisionStep } from '../../../src/domain/provisioning';
import type { VmBuild } from '../run-context';

/** NetBox interface id per NIC slot, and the slots whose interface this run created. */
export interface InterfaceIds {
  ids: Record<string, number>;
  created: string[];
}

/** The record's interfaces, with the MACs Proxmox gave the NICs. */
export async function recordNetboxInterfaces({
  acts,
  spec,
  vmid,
  node,
  status,
  enter,
  record,
  known,
}: VmBuild): Promise<InterfaceIds> {
  enter('netbox');
  status.macs = await acts.read.readVmMacs.executeWithOptions({ summary: `MACs of VM ${vmid}` }, [{ node, vmid }]);
  const interfaceIds: InterfaceIds = { ids: {}, created: [] };
  for (const nic of spec.nics) {
    const mac = status.macs[nic.slot]!;
    if (spec.netboxId === undefined) {
      record(provisionStep('interface', nic.slot, 'skipped', 'no NetBox record'));
      continue;
    }
    const summary = `NetBox interface ${nic.slot} of ${spec.name}, MAC ${mac}`;
    const done = await acts.write.ensureNetboxInterface.executeWithOptions({ summary }, [
      { netboxId: spec.netboxId, name: nic.slot, mac, ...(known.hadNoInterfaces ? { vmHadNone: true } : {}) },
    ]);
    interfaceIds.ids[nic.slot] = done.interfaceId;
    if (done.interface === 'created') interfaceIds.created.push(nic.slot);
    record(provisionStep('interface', nic.slot, done.interface));
    record(provisionStep('mac', `${nic.slot} ${mac}`, done.mac));
  }
  return interfaceIds;
}
