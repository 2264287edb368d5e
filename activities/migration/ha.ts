import { haPlan, haSid, withResource } from '../../src/domain/migration';
import { FerryError } from '../../src/errors';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import type { HaActivities } from '../ha-contract';

/** `migration.ha` on the Proxmox client: read what the cluster's HA offers, decide (src/domain), then write. */
export function createHaActivities(deps: ActivityDeps): HaActivities {
  const { pve } = clientsOf(deps);
  return {
    async registerHaResource({ vmid, ha }) {
      const client = pve();
      const version = await client.version();
      const [groups, rules] = await Promise.all([client.ha.groups(), client.ha.rules()]);
      const plan = haPlan(vmid, ha, {
        version: version.version,
        major: version.major,
        groups,
        ...(rules ? { rules } : {}),
      });
      if ('refusal' in plan) throw new FerryError(plan.refusal, 'policy');
      const { created } = await client.ha.ensureResource({
        sid: plan.sid,
        group: plan.group,
        state: ha.state,
        maxRestart: ha.maxRestart,
        maxRelocate: ha.maxRelocate,
        comment: 'migrated by ferry',
      });
      if (plan.rule) await client.ha.addToRule(plan.rule, plan.sid, withResource);
      return { ...plan, created };
    },

    async removeHaResource({ vmid }) {
      return pve().ha.removeResource(haSid(vmid));
    },
  };
}
