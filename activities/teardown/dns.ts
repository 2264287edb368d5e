import { hostAddress } from '../../src/domain/provisioning';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import type { TeardownActivities } from '../provisioning-contract';
import { writeIntent } from '../write-intent';
import { outcomeOf, removal } from './outcome';

/** Removes the VM's A and PTR records. */
export function createDnsCleanupActivities(deps: ActivityDeps): Pick<TeardownActivities, 'cleanupDns'> {
  const { dns } = clientsOf(deps);
  return {
    async cleanupDns({ target }) {
      if (!deps.dns) return { cleanup: 'dns', result: 'skipped', detail: 'DNS is not configured for this worker' };
      if (!target.fqdn)
        return {
          cleanup: 'dns',
          result: 'skipped',
          detail: 'no DNS name (provisioning.dnsZone is not set, or the VM has no name)',
        };
      const results: Array<{ what: string; removed: boolean }> = [];
      const intent = writeIntent();
      const fqdn = target.fqdn;
      // PTR first: while the A record stays, a rerun can still find the address from it.
      for (const { address } of target.addresses) {
        const host = hostAddress(address);
        results.push(
          await removal(intent, `PTR ${host}`, async () => (await dns().deletePtr(host, fqdn)) === 'deleted'),
        );
      }
      for (const { address } of target.addresses) {
        const host = hostAddress(address);
        results.push(
          await removal(intent, `${fqdn} A ${host}`, async () => (await dns().deleteA(fqdn, host)) === 'deleted'),
        );
      }
      return outcomeOf('dns', results, `no address of ${target.fqdn} in NetBox or DNS`);
    },
  };
}
