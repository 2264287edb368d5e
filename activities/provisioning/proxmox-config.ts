import { bootOrderHolds } from '../../src/domain/boot-order';
import { FerryError } from '../../src/errors';
import { normaliseValue } from '../../src/proxmox/api';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import type { ProvisioningActivities } from '../provisioning-contract';
import { writeIntent } from '../write-intent';

/** The provisioned VM's options and its cloud-init drive with its settings, only what differs written. */
export function createVmConfigActivities(
  deps: ActivityDeps,
): Pick<ProvisioningActivities, 'ensureVmOptions' | 'ensureCloudInit'> {
  const { pve } = clientsOf(deps);
  return {
    async ensureVmOptions({ node, vmid, options }) {
      const intent = writeIntent();
      const { values } = await pve().config.get(node, vmid);
      const { boot, ...rest } = options;
      const toWrite = boot === undefined || bootOrderHolds(values.boot, boot, values) ? rest : options;
      for (const [key, value] of Object.entries(toWrite))
        if (values[key] !== normaliseValue(value)) intent.start(`option ${key}`);
      const { changed } = await pve().config.ensure(node, vmid, toWrite);
      const byEarlier = Object.keys(toWrite).filter(
        (key) => intent.startedEarlier(`option ${key}`) && !changed.includes(key),
      );
      return { changed: [...changed, ...byEarlier] };
    },

    async ensureCloudInit({ node, vmid, slot, storage, settings }) {
      const client = pve();
      const intent = writeIntent();
      const { values } = await client.config.get(node, vmid);
      const changed: string[] = [];
      if (!Object.values(values).some((v) => /(^|[:/])vm-\d+-cloudinit\b/.test(v))) {
        if (values[slot] !== undefined)
          throw new FerryError(
            `VM ${vmid} ${slot} holds ${values[slot]}; the cloud-init drive needs ${slot}`,
            'policy',
          );
        intent.start('cloud-init drive');
        await client.config.update(node, vmid, { set: { [slot]: `${storage}:cloudinit` } });
        changed.push(slot);
      } else if (intent.startedEarlier('cloud-init drive')) changed.push(slot);
      for (const [key, value] of Object.entries(settings))
        if (values[key] !== normaliseValue(value)) intent.start(`option ${key}`);
      const set = await client.config.ensure(node, vmid, settings);
      const byEarlier = Object.keys(settings).filter(
        (key) => intent.startedEarlier(`option ${key}`) && !set.changed.includes(key),
      );
      return { changed: [...changed, ...set.changed, ...byEarlier] };
    },
  };
}
