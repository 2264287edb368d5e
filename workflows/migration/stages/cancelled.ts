import { CancellationScope } from '@temporalio/workflow';
import type { LeftOnCancel, MigrateVmResult } from '../../../src/domain/migration';
import { failureMessage } from '../../failures';
import type { MigrationRun } from '../run-context';

/**
 * The end of a cancelled run (before its shutdown): the shell is kept, or removed when the cancel said
 * so (a removal that fails leaves it, saying why, and the run still ends cancelled); what vCenter shows
 * of the VM afterwards (its power state, where each disk is: a storage vMotion that finished stays) is
 * recorded with the cancel.
 */
export async function endCancelled(run: MigrationRun): Promise<MigrateVmResult> {
  const cancellation = run.cancellation!;
  run.gate.closeApproval();
  cancellation.left = await CancellationScope.nonCancellable(() => whatIsLeft(run, cancellation.removeShells));
  return run.finish('cancelled', 'cancelled');
}

async function whatIsLeft(run: MigrationRun, removeShells: boolean): Promise<LeftOnCancel> {
  const vmware = await run.acts.read.readVmAfterCancel.executeWithOptions(
    { summary: `how ${run.status.vm} is on VMware after ferry cancel` },
    [{ moid: run.moid }],
  );
  const { relocation, ...state } = vmware;
  const left: LeftOnCancel = { vmware: state, shell: 'none' };
  if (relocation && run.status.timings.some((t) => t.stage === 'relocate'))
    left.relocation = `${relocation.task}: ${relocation.state}`;
  const planned = run.plannedVm;
  const shellStarted = run.status.timings.some((t) => t.stage === 'shell');
  if (!planned || !shellStarted) return left;
  if (!removeShells) return { ...left, shell: 'kept' };
  const { vmid, assessment } = planned;
  const { node } = run.settings;
  let destroyed: boolean;
  try {
    ({ destroyed } = await run.acts.pveTask.discardVm.executeWithOptions(
      { summary: `remove the shell VM ${vmid} ${assessment.pveName} (ferry cancel --remove-shells)` },
      [{ node, vmid, name: assessment.pveName }],
    ));
  } catch (err) {
    // The cancel stands (the VM stopped where it was): the shell stays, and the status says why.
    return { ...left, shell: 'kept', shellNotRemoved: failureMessage(err) };
  }
  if (!destroyed) return left; // no shell was there to remove
  run.record({ kind: 'remove-shell', vm: assessment.pveName, vmid });
  return { ...left, shell: 'removed' };
}
