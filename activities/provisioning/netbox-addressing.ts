import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import type { ProvisioningActivities } from '../provisioning-contract';
import { writeIntent } from '../write-intent';
import { seenAfter, truthful, writeOutcome } from './netbox-outcome';
import { PrefixCache } from './prefix-cache';

/** The VM's interfaces in NetBox, each with its MAC, and its address from the prefix (made primary). */
export function createNetboxAddressActivities(
  deps: ActivityDeps,
): Pick<ProvisioningActivities, 'ensureNetboxInterface' | 'assignNetboxIp'> {
  const { netbox } = clientsOf(deps);
  const prefixes = new PrefixCache();
  return {
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
  };
}
