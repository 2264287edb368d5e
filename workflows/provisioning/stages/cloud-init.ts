import { ApplicationFailure } from '@temporalio/workflow';
import { CLOUD_INIT_SLOT, provisionStep } from '../../../src/domain/provisioning';
import type { VmBuild } from '../run-context';

/**
 * The guest's NetBox address on a cloud-init drive (spec.cloudInit): `scsi30: <storage>:cloudinit` and
 * `ipconfig0: ip=<address>`, so the image the VM boots configures it on the NIC with net0's MAC.
 */
export async function attachCloudInit({ acts, spec, vmid, node, status, enter, record }: VmBuild): Promise<void> {
  if (!spec.cloudInit) return;
  enter('cloud-init');
  if (!status.address) {
    throw ApplicationFailure.create({
      message: `${spec.name}: cloudInit needs the NetBox address, and none was assigned (set prefix and netboxId)`,
      nonRetryable: true,
    });
  }
  const storage = spec.efiStorage ?? spec.disks[0]?.storage;
  if (!storage)
    throw ApplicationFailure.create({
      message: `${spec.name}: cloudInit needs a storage for its drive (a disk or efiStorage)`,
      nonRetryable: true,
    });
  const settings = { ipconfig0: `ip=${status.address}` };
  const slot = CLOUD_INIT_SLOT;
  const { changed } = await acts.write.ensureCloudInit.executeWithOptions(
    { summary: `cloud-init drive ${slot} on ${storage}: ipconfig0 ip=${status.address}` },
    [{ node, vmid, slot, storage, settings }],
  );
  record(
    provisionStep(
      'cloud-init',
      slot,
      changed.includes(slot) ? 'created' : changed.length ? 'updated' : 'unchanged',
      `ipconfig0 ip=${status.address}`,
    ),
  );
}
