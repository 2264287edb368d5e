import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import type { ProvisioningActivities } from '../provisioning-contract';
import { writeIntent } from '../write-intent';

/** The DNS side of provisioning: the VM's A and PTR records (RFC 2136). */
export function createDnsActivities(deps: ActivityDeps): Pick<ProvisioningActivities, 'ensureDnsRecord'> {
  const { dns } = clientsOf(deps);
  return {
    async ensureDnsRecord({ type, name, address }) {
      // Recorded before it is sent: a record an earlier attempt of this run wrote reports "created" (write-intent.ts).
      const intent = writeIntent();
      intent.start(type);
      const outcome = type === 'A' ? await dns().ensureA(name, address) : await dns().ensurePtr(address, name);
      return { outcome: outcome === 'created' || intent.startedEarlier(type) ? 'created' : 'unchanged' };
    },
  };
}
