import { ActivityCancellationType } from '@temporalio/workflow';
import { filesOnDatastore, type MigrateVmResult } from '../../../src/domain/migration';
import { PERMIT_KEYS } from '../../../src/domain/permits';
import { withPermit } from '../../permits';
import { permitLeaseMs } from '../proxies';
import type { MigrationRun } from '../run-context';
import { refuseDisksOutOfReach } from './disks-in-reach';

/**
 * Storage vMotion onto the datastore Proxmox mounts: live, reversible, under the global vMotion limit.
 * Then, before anyone is asked to approve, every disk must be where Proxmox reads it (see
 * disks-in-reach.ts): a VM whose disks are not is refused here, not after its approval.
 */
export async function relocate(run: MigrationRun): Promise<MigrateVmResult | undefined> {
  run.enter('relocate');
  const { snapshot, assessment } = run.vm;
  const { settings } = run;
  const datastore = settings.migrationDatastore;
  const diskDatastores = Object.fromEntries(snapshot.vm.disks.map((d) => [d.label, d.datastore?.name]));
  if (filesOnDatastore(snapshot.datastores, diskDatastores, datastore)) return refuseDisksOutOfReach(run, 'as read');
  // The permit is held for as long as the activity may retry (and rejoin its vMotion).
  const permit = {
    key: PERMIT_KEYS.vmotion,
    permits: settings.limits.vmotion,
    leaseMs: permitLeaseMs(settings.relocateTimeoutMs),
    label: `relocate ${assessment.name}`,
  };
  await withPermit(permit, async ({ waitedMs }) => {
    run.waited({ for: 'vMotion permit', waitedMs });
    // A cancel (ferry cancel) waits for the activity: it cancels the vCenter task and ends when the task has.
    const cancellationType = ActivityCancellationType.WAIT_CANCELLATION_COMPLETED;
    await run.acts.vmotion.relocateVm.executeWithOptions(
      { summary: `storage vMotion ${assessment.name} → ${datastore}`, cancellationType },
      [{ moid: run.moid, datastore }],
    );
  });
  run.record({ kind: 'relocate', vm: assessment.pveName, moid: run.moid, datastore });
  return refuseDisksOutOfReach(run, 'read again');
}
