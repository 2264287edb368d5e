import { nicIndex, pveNicOf } from '../../src/domain/provisioning';
import { FerryError } from '../../src/errors';
import { normalizeMac } from '../../src/netbox/client';
import { parseDiskSize } from '../../src/proxmox/disks';
import { normaliseValue } from '../../src/proxmox/api';
import { parseNic } from '../../src/proxmox/nics';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import type { ProvisioningActivities } from '../provisioning-contract';
import { createdWithMark, runMarked } from '../run-mark';
import { writeIntent } from '../write-intent';

type ProxmoxActivities = Pick<
  ProvisioningActivities,
  'createBareVm' | 'ensureVmAcl' | 'ensureVmDisk' | 'ensureVmNic' | 'ensureVmOptions' | 'ensureCloudInit' | 'readVmMacs'
>;

/**
 * The Proxmox side of provisioning: the VM, its ACL, each disk and NIC in its slot, its options.
 * Each write is recorded before it is sent (write-intent.ts), so a retry that finds it done by an earlier
 * attempt reports it as done by this run.
 */
export function createProxmoxActivities(deps: ActivityDeps): ProxmoxActivities {
  const { pve } = clientsOf(deps);
  return {
    async createBareVm(vm) {
      const intent = writeIntent();
      const { description, mark } = runMarked(vm.description);
      intent.start('create');
      const { created } = await pve().vms.create({ ...vm, description }, { onProgress: intent.beat });
      if (created || intent.startedEarlier('create')) return { created: true };
      return { created: await createdWithMark(pve(), vm.node, vm.vmid, mark) };
    },

    async ensureVmAcl({ vmid, roles, users, groups }) {
      const intent = writeIntent();
      intent.start('acl');
      const { changed } = await pve().acl.ensure({ path: `/vms/${vmid}`, roles, users, groups, propagate: true });
      return { changed: changed || intent.startedEarlier('acl') };
    },

    async ensureVmDisk({ node, vmid, disk }) {
      const client = pve();
      const intent = writeIntent();
      const before = await client.disks.get(node, vmid, disk.slot);
      if (before && !before.volume.startsWith(`${disk.storage}:`)) {
        throw new FerryError(
          `VM ${vmid} ${disk.slot} holds ${before.volume}, not a disk on ${disk.storage}; ferry does not move or replace disks`,
          'policy',
        );
      }
      // Only a disk this run creates counts: one an earlier run left is "unchanged" however this attempt began.
      if (!before) intent.start('create-disk');
      const source = before ? undefined : disk.importFrom;
      const imported = source !== undefined;
      if (source !== undefined) {
        // The image is copied in (import-from) only when the slot is empty; then grown to the spec's size below.
        await client.disks.import(
          node,
          vmid,
          disk.slot,
          { storage: disk.storage, source, options: disk.options },
          { onProgress: intent.beat },
        );
      }
      const { action } = await client.disks.ensure(
        node,
        vmid,
        disk.slot,
        { storage: disk.storage, sizeGiB: disk.sizeGiB, options: disk.options },
        { onProgress: intent.beat },
      );
      const wanted = parseDiskSize(`${disk.sizeGiB}G`);
      const now = await client.disks.get(node, vmid, disk.slot);
      let grown = false;
      if (now?.sizeBytes !== undefined && now.sizeBytes < wanted) {
        intent.start('resize');
        grown = (await client.disks.resize(node, vmid, disk.slot, `${disk.sizeGiB}G`, { onProgress: intent.beat }))
          .changed;
      }
      if (action === 'created' || imported || intent.startedEarlier('create-disk')) return { outcome: 'created' };
      return { outcome: action === 'updated' || grown || intent.startedEarlier('resize') ? 'updated' : 'unchanged' };
    },

    async ensureVmNic({ node, vmid, nic }) {
      const client = pve();
      const intent = writeIntent();
      const existed = (await client.nics.list(node, vmid))[nic.slot] !== undefined;
      // Only a NIC this run adds to an empty slot is recorded: whether an existing one differs is decided inside set().
      if (!existed) intent.start('create-nic');
      const { changed } = await client.nics.set(node, vmid, nicIndex(nic.slot), pveNicOf(nic));
      if (intent.startedEarlier('create-nic')) return { outcome: 'created' };
      return { outcome: !changed ? 'unchanged' : existed ? 'updated' : 'created' };
    },

    async ensureVmOptions({ node, vmid, options }) {
      const intent = writeIntent();
      const { values } = await pve().config.get(node, vmid);
      for (const [key, value] of Object.entries(options))
        if (values[key] !== normaliseValue(value)) intent.start(`option ${key}`);
      const { changed } = await pve().config.ensure(node, vmid, options);
      const byEarlier = Object.keys(options).filter(
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

    async readVmMacs({ node, vmid }) {
      const { values } = await pve().config.get(node, vmid);
      return Object.fromEntries(
        Object.entries(values)
          .filter(([key]) => /^net\d+$/.test(key))
          .map(([key, value]) => [key, normalizeMac(parseNic(value).macaddr)]),
      );
    },
  };
}
