import { sourceInStorage } from '../../../src/domain/conversion';
import {
  cutoverPowerRefusal,
  hardwareChanges,
  parseDatastorePath,
  refusal,
  translateDiskPath,
  type Refusal,
} from '../../../src/domain/migration';
import type { MigrationRun } from '../run-context';

/**
 * Per Proxmox slot: where its VMware disk is now, as a path and (if exported so) an import volume, and
 * as the storage and storage-relative path conversion reads it from.
 */
export type DiskSources = Record<
  string,
  { absolutePath: string; importVolume?: string; disk: string; storage: string; source: string }
>;

/** What import-from reads: the import volume when there is one (no root needed), else the path. */
export function importSource(source: DiskSources[string]): string {
  return source.importVolume ?? source.absolutePath;
}

/**
 * The disks as they are after the approval, translated to what Proxmox sees. The approval was for the
 * VM as planned: a disk or NIC added, removed or re-addressed since, or a disk not on the migration
 * datastore, stops the cutover before the guest is touched; so does a suspended VM (ferry does not
 * power off a suspended guest). The power state read here is what a rollback returns the VM to.
 */
export async function currentDiskSources(
  run: MigrationRun,
): Promise<{ byslot: DiskSources } | { refusals: Refusal[] }> {
  const { snapshot, assessment } = run.vm;
  const { migrationDatastore, datastores } = run.settings;
  const fresh = await run.acts.read.rereadVm.executeWithOptions({ summary: `read VM ${run.moid} again in vCenter` }, [
    { moid: run.moid },
  ]);
  const suspended = cutoverPowerRefusal(assessment.name, fresh.powerState);
  if (suspended) return { refusals: [suspended] };
  run.status.vmwarePowerState = fresh.powerState;
  const changed = hardwareChanges(snapshot.vm, fresh);
  if (changed.length > 0) {
    const why = `${assessment.name} changed since it was planned: ${changed.join('; ')}; run the migration again to plan the VM as it is now`;
    return { refusals: [refusal('vm-changed', assessment.name, why)] };
  }
  const refusals: Refusal[] = [];
  const byslot: DiskSources = {};
  for (const planned of assessment.disks) {
    const disk = fresh.disks.find((d) => d.label === planned.source);
    if (!disk) {
      refusals.push({
        code: 'disk-path-invalid',
        subject: planned.source,
        reason: `${planned.source} is no longer attached to the VMware VM`,
      });
      continue;
    }
    if (disk.datastore?.name !== migrationDatastore) {
      refusals.push({
        code: 'disk-unmapped-datastore',
        subject: planned.source,
        reason: `${planned.source} is on ${disk.datastore?.name ?? 'an unknown datastore'} (${disk.fileName}), not on the migration datastore ${migrationDatastore}; the storage vMotion did not move it`,
      });
      continue;
    }
    const translated = translateDiskPath(disk, datastores);
    if (!translated.ok) {
      refusals.push(translated.refusal);
      continue;
    }
    const mapping = datastores.find((m) => m.datastore === parseDatastorePath(disk.fileName)?.datastore)!;
    byslot[planned.slot] = {
      absolutePath: translated.absolutePath,
      importVolume: translated.importVolume,
      disk: planned.source,
      storage: translated.storage,
      source: sourceInStorage(disk.fileName, mapping)!,
    };
  }
  return refusals.length > 0 ? { refusals } : { byslot };
}
