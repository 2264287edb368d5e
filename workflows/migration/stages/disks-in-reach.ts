import { diskSourcesOf, type MigrateVmResult } from '../../../src/domain/migration';
import { failureMessage } from '../../failures';
import type { MigrationRun } from '../run-context';

/**
 * Before the approval gate: is every planned disk on the migration datastore, at a path a Proxmox
 * storage mounts? A person must not be asked to approve a cutover that would be refused at once. The
 * disks are those validation read (no vMotion ran) or, after a vMotion, read again from vCenter. A VM
 * whose disks are out of reach is refused with the reasons; the shell this run built for it is removed
 * first (recorded as a `remove-shell` action; one that cannot be removed is kept, and the status says
 * why). The cutover checks the disks again: they may change after the approval.
 */
export async function refuseDisksOutOfReach(run: MigrationRun): Promise<MigrateVmResult | undefined> {
  const relocated = run.status.timings.some((t) => t.stage === 'relocate');
  const current = relocated
    ? (
        await run.acts.read.rereadVm.executeWithOptions(
          { summary: `read VM ${run.moid} again: are its disks on ${run.settings.migrationDatastore} now?` },
          [{ moid: run.moid }],
        )
      ).disks
    : run.vm.snapshot.vm.disks;
  const checked = diskSourcesOf(run.vm.assessment, current, run.settings);
  if (!('refusals' in checked)) return undefined;
  await removeOwnShell(run);
  return run.refuse(checked.refusals);
}

/** The shell this run created goes with the refusal; one it adopted (an earlier run's) stays for that run's rerun. */
async function removeOwnShell(run: MigrationRun): Promise<void> {
  const { vmid, assessment, occupancy } = run.vm;
  if (occupancy.kind !== 'free') return;
  try {
    const { destroyed } = await run.acts.pveTask.discardVm.executeWithOptions(
      {
        summary: `remove the shell VM ${vmid} ${assessment.pveName}: ${assessment.name} is refused before its approval`,
      },
      [{ node: run.settings.node, vmid, name: assessment.pveName }],
    );
    if (destroyed) run.record({ kind: 'remove-shell', vm: assessment.pveName, vmid, refused: true });
  } catch (err) {
    run.status.shellKept = `the shell VM ${vmid} was kept: ${failureMessage(err)}`;
  }
}
