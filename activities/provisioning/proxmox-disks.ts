import { FerryError } from '../../src/errors';
import { parseDiskSize } from '../../src/proxmox/disks';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import type { ProvisioningActivities } from '../provisioning-contract';
import { writeIntent } from '../write-intent';

/** Each disk of the provisioned VM in its slot: imported or created, grown to the spec's size, never moved or shrunk. */
export function createVmDiskActivities(deps: ActivityDeps): Pick<ProvisioningActivities, 'ensureVmDisk'> {
  const { pve } = clientsOf(deps);
  return {
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
  };
}
