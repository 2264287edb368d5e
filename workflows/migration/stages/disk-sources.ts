import {
  cutoverPowerRefusal,
  diskSourcesOf,
  hardwareChanges,
  refusal,
  type DiskSources,
  type Refusal,
} from '../../../src/domain/migration';
import type { MigrationRun } from '../run-context';

export type { DiskSources } from '../../../src/domain/migration';

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
  return diskSourcesOf(assessment, fresh.disks, run.settings);
}
