import { fqdn, hostAddress, type TeardownTarget } from '../../src/domain/provisioning';
import { FerryError } from '../../src/errors';
import { NetboxError } from '../../src/netbox/errors';
import type { VirtualMachine } from '../../src/netbox/schemas';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import type { TeardownActivities } from '../provisioning-contract';

/** What a VM has, read from Proxmox, NetBox and DNS: what the teardown will remove. */
export function createTargetActivities(deps: ActivityDeps): Pick<TeardownActivities, 'readTeardownTarget'> {
  const { pve, netbox, dns } = clientsOf(deps);
  const zone = deps.config.provisioning?.dnsZone;

  /** The NetBox VM of this VMID: by id when given, else the one whose ferry_vmid is the VMID. */
  async function netboxRecord(vmid: number, netboxId?: number): Promise<VirtualMachine | undefined> {
    if (!deps.netbox) return undefined;
    if (netboxId !== undefined) {
      try {
        return (await netbox().getVirtualMachine(netboxId)).value;
      } catch (err) {
        if (err instanceof NetboxError && err.status === 404) return undefined;
        throw err;
      }
    }
    const found = await netbox().listVirtualMachines({ customFields: { ferry_vmid: vmid } });
    if (found.length > 1) {
      throw new FerryError(
        `NetBox VMs ${found.map((v) => `"${v.name}" (id ${v.id})`).join(', ')} all hold ferry_vmid ${vmid}; name the one to tear down by its NetBox id`,
        'invalid',
      );
    }
    return found[0];
  }

  return {
    async readTeardownTarget({ vmid, netboxId }): Promise<TeardownTarget> {
      const vm = await pve().vms.findById(vmid);
      const record = await netboxRecord(vmid, netboxId);
      const name = record?.name ?? vm?.name;
      const target: TeardownTarget = {
        vmid,
        ...(name ? { name } : {}),
        ...(vm ? { node: vm.node, power: vm.status === 'running' ? 'running' : 'stopped' } : {}),
        ...(record ? { netboxId: record.id, netboxStatus: record.status.value } : {}),
        ...(zone && name ? { fqdn: fqdn(name, zone) } : {}),
        addresses: [],
        interfaces: [],
      };
      if (record) {
        for (const iface of await netbox().listInterfaces(record.id)) {
          target.interfaces.push({
            id: iface.id,
            name: iface.name,
            macIds: (await netbox().interfaceMacs(iface.id)).map((m) => m.id),
          });
        }
        target.addresses.push(
          ...(await netbox().vmAddresses(record.id)).map((ip) => ({ address: ip.address, id: ip.id })),
        );
      }
      // DNS knows the address too, even when NetBox no longer does (an earlier run released it).
      if (deps.dns && target.fqdn) {
        for (const address of await dns().lookup(target.fqdn, 'A')) {
          if (!target.addresses.some((a) => hostAddress(a.address) === address)) target.addresses.push({ address });
        }
      }
      return target;
    },
  };
}
