import { condition } from '@temporalio/workflow';
import type { ChangePlan } from '../../../src/domain/change';
import { workflowNow } from '../../clock';
import { waitForCutoverStart } from '../../migration/cutover-start';
import type { ChangeRun } from '../run-context';
import { cutoverSchedule } from '../../../src/domain/migration';

/** What the gate ended with: a decision, the maintenance window, or a new NetBox edit (plan again). */
export type GateResult = { by: 'approval'; restart: boolean } | { by: 'rejection' } | { by: 'window' } | { by: 'edit' };

/** The plan has changes that wait for a person: those that wait for a restart, or need the VM stopped. */
export function hasGated(plan: ChangePlan): boolean {
  return plan.steps.restart !== undefined || plan.steps.stopped !== undefined;
}

/**
 * Changes that wait for a restart are written only with an approval (which may ask ferry to restart the
 * VM) or inside `change.window` (written, left pending: ferry never restarts unasked). A new NetBox edit
 * meanwhile ends the wait: the run plans again, and an approval must be given for the new plan.
 */
export async function awaitGate(run: ChangeRun): Promise<GateResult> {
  const { gate } = run;
  const edits = run.editCount;
  run.enter('awaiting-approval');
  gate.openGate();
  let windowOpen = false;
  const window = run.settings.window;
  // Left running when a decision comes first: a timer the workflow no longer waits for.
  if (window)
    void waitForCutoverStart(() => cutoverSchedule(window, undefined, workflowNow())).then(() => {
      windowOpen = true;
    });
  await run.waitFor(
    `an approval of the changes that wait for a restart (ferry approve change-${run.status.vmid})`,
    () => condition(() => gate.decided || windowOpen || run.editCount > edits),
  );
  gate.closeGate();
  if (gate.approval) {
    run.status.approval = gate.approval;
    return { by: 'approval', restart: gate.approval.restart === true };
  }
  if (gate.rejection) {
    run.status.rejection = gate.rejection;
    return { by: 'rejection' };
  }
  return windowOpen ? { by: 'window' } : { by: 'edit' };
}
