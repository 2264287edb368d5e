import { ActivityCancellationType } from '@temporalio/workflow';
import { filesOnDatastore } from '../../../src/domain/migration';
import { PERMIT_KEYS } from '../../../src/domain/permits';
import { underPermit } from '../../vm/permit';
import { permitLeaseMs } from '../../vm/proxies';
import type { MigrationRun } from '../run-context';

/** Whether the VM's files still have to move onto the datastore Proxmox mounts (none there yet, or some). */
export function needsRelocation(run: MigrationRun): boolean {
  const { snapshot } = run.vm;
  const diskDatastores = Object.fromEntries(snapshot.vm.disks.map((d) => [d.label, d.datastore?.name]));
  return !filesOnDatastore(snapshot.datastores, diskDatastores, run.settings.migrationDatastore);
}

/** Storage vMotion onto the datastore Proxmox mounts: live, reversible, under the global vMotion limit. */
export async function relocate(run: MigrationRun): Promise<undefined> {
  const { assessment } = run.vm;
  const { settings } = run;
  const datastore = settings.migrationDatastore;
  // The permit is held for as long as the activity may retry (and rejoin its vMotion).
  const permit = {
    key: PERMIT_KEYS.vmotion,
    permits: settings.limits.vmotion,
    leaseMs: permitLeaseMs(settings.relocateTimeoutMs),
    label: `relocate ${assessment.name}`,
  };
  await underPermit(run, permit, () =>
    run.acts.longCopy('vmotion', settings.relocateTimeoutMs).relocateVm.executeWithOptions(
      // A cancel (ferry cancel) waits for the activity: it cancels the vCenter task and ends when the task has.
      {
        summary: `storage vMotion ${assessment.name} → ${datastore}`,
        cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
      },
      [{ moid: run.moid, datastore }],
    ),
  );
  run.record({ kind: 'relocate', vm: assessment.pveName, moid: run.moid, datastore });
  return undefined;
}
