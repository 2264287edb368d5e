import { CancellationScope } from '@temporalio/workflow';
import { rollbackPowerAction, type MigrateVmResult } from '../../../src/domain/migration';
import type { MigrationRun } from '../run-context';
import { removeOverlays } from './convert';
import { removeHa } from './ha';

/**
 * Return the VMware VM to the power state it had before the shutdown (on stays on, off stays off),
 * after making sure the Proxmox VM is off (both running would share MACs).
 * Only what this workflow created goes: its imported disks, the disks it attached from overlays (and
 * moved), or the VM its live import created (which replaced the shell). Disks an earlier run imported stay, and are listed in `keptOnRollback`. Runs to
 * its end even when the workflow is cancelled.
 */
export async function rollback(run: MigrationRun): Promise<MigrateVmResult> {
  run.enter('rollback');
  await CancellationScope.nonCancellable(() => undoCutover(run));
  return run.finish('rolled-back', 'rolled-back');
}

async function undoCutover(run: MigrationRun): Promise<void> {
  const { status, acts } = run;
  const { assessment, vmid } = run.vm;
  const { node } = run.settings;
  const vm = assessment.pveName;
  const kept = status.imports
    .filter((i) => !i.created)
    .map((i) => `${i.slot} (${i.disk}): ${i.volume} was there before this workflow ran; left in place`);
  await removeHa(run);
  if (status.replacedVm) {
    await acts.pveTask.discardVm.executeWithOptions({ summary: `discard VM ${vmid} ${vm} (its live import)` }, [
      { node, vmid, name: vm },
    ]);
  } else {
    await acts.pveTask.stopVm.executeWithOptions({ summary: `stop VM ${vmid} ${vm}` }, [{ node, vmid }]);
    // Imported disks this workflow created; in overlay mode every slot it attached (its overlay, or the copy it moved to).
    const ours = [
      ...status.imports.filter((i) => i.created).map((i) => i.slot),
      ...(status.moves ?? []).map((m) => m.slot),
    ];
    if (ours.length > 0)
      await acts.pveTask.removeDisks.executeWithOptions({ summary: `remove ${ours.join(', ')} of ${vm}` }, [
        { node, vmid, slots: ours },
      ]);
  }
  status.imports = [];
  if (status.moves) status.moves = [];
  if (kept.length > 0) status.keptOnRollback = kept;
  await removeOverlays(run); // VMware's files were only read: dropping the overlays restores them exactly
  await restoreVmwarePower(run);
}

/** Power on only a VM that was on before the shutdown: a rollback restores, it does not guess. */
async function restoreVmwarePower(run: MigrationRun): Promise<void> {
  if (rollbackPowerAction(run.status.vmwarePowerState) === 'leave-off') return;
  await run.acts.pveTask.powerOnVm.executeWithOptions({ summary: `power on ${run.vm.assessment.name} on VMware` }, [
    { moid: run.moid },
  ]);
}
