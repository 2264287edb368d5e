import { inspectedConversion } from '../inspected-conversion';
import type { MigrationRun } from '../run-context';

/** Whether the VM's guest conversion would run: then it is inspected before the approval. */
export function conversionPlanned(run: MigrationRun): boolean {
  return run.vm.assessment.conversion?.convert === true;
}

/**
 * Before the approval, for a VM whose guest conversion would run: reads the guest on its VMDKs, now on
 * the migration datastore (read-only; the guest still runs on VMware), so that the cutover plan a person
 * approves says what conversion will do: the OS, NIC name pins, the agent, the packages virt-v2v removes,
 * or why nothing will be converted. An inspection that cannot run leaves the plan from vCenter's facts,
 * with a warning: the cutover inspects the guest again.
 */
export async function inspectGuest(run: MigrationRun): Promise<undefined> {
  const planned = run.vm.assessment.conversion;
  if (!planned?.convert) return undefined;
  const fresh = await run.acts.read.rereadVm.executeWithOptions(
    { summary: `read VM ${run.moid} again in vCenter (its disks after the vMotion)` },
    [{ moid: run.moid }],
  );
  const { assessment, snapshot } = run.vm;
  const inspected = await inspectedConversion(run.acts, assessment, fresh.disks, snapshot.vm.firmware, run.settings);
  if ('plan' in inspected) {
    run.status.conversion = { plan: inspected.plan };
    return undefined;
  }
  const warning =
    inspected.unread === 'elsewhere'
      ? `the disks could not be inspected before the approval (${inspected.why}); the cutover inspects the guest`
      : `the inspection failed (${inspected.why}); the cutover inspects the guest again`;
  run.status.conversion = { plan: { ...planned, warnings: [...planned.warnings, warning] } };
  return undefined;
}
