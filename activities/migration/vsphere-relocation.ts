import { cancellationSignal } from '@temporalio/activity';
import { VsphereFault, type VsphereClient } from '../../src/vsphere';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import { beatOperation, beatProgress } from '../heartbeat';
import type { VsphereMigrationActivities } from '../migration-contract';
import { earlierRelocation } from './task-rejoin';

const CANCEL_SETTLE_MS = 10 * 60_000;

/** The storage vMotion of the VM's disks, and after a `ferry cancel` what it left. */
export function createVsphereRelocationActivities(
  deps: ActivityDeps,
): Pick<VsphereMigrationActivities, 'relocateVm' | 'readVmAfterCancel'> {
  const { vsphere } = clientsOf(deps);
  return {
    async relocateVm({ moid, datastore }) {
      // A retry after the worker died: wait for the vMotion it started (vCenter would refuse a second one).
      const earlier = await earlierRelocation(vsphere(), moid);
      if (earlier) {
        try {
          await vsphere().waitForRelocation(moid, earlier, { onProgress: beatOperation, signal: cancellationSignal() });
          return { moved: true };
        } catch (err) {
          // That task failed or is forgotten: say so in the heartbeat (so it is not rejoined again) and start afresh.
          if (!(err instanceof VsphereFault)) throw err;
          beatProgress({ phase: 'relocate', elapsedMs: 0, earlierTask: earlier, earlierError: err.message });
        }
      }
      try {
        const result = await vsphere().relocateVmStorage(moid, datastore, {
          onProgress: beatOperation,
          signal: cancellationSignal(),
        });
        return { moved: result.moved };
      } catch (err) {
        // Cancelled (ferry cancel): vCenter was asked to cancel the task; the activity ends only once the task has.
        if (cancellationSignal().aborted) await relocationsEnded(vsphere(), moid);
        throw err;
      }
    },

    async readVmAfterCancel({ moid }) {
      const vm = await vsphere().readVm(moid);
      const relocation = await vsphere().latestRelocation(moid);
      return {
        powerState: vm.powerState,
        disks: vm.disks.map((d) => ({ label: d.label, datastore: d.datastore?.name })),
        ...(relocation ? { relocation: { task: relocation.task, state: relocation.state } } : {}),
      };
    },
  };
}

/**
 * Waits until the VM has no storage vMotion queued or running (a cancelled task may take a while to
 * undo its copy), heartbeating, for at most ten minutes.
 */
async function relocationsEnded(vsphere: VsphereClient, moid: string): Promise<void> {
  const started = Date.now();
  const deadline = started + CANCEL_SETTLE_MS;
  for (;;) {
    const running = await vsphere.runningRelocations(moid);
    beatProgress({
      phase: 'relocate-cancel',
      elapsedMs: Date.now() - started,
      ...(running[0] ? { task: running[0].task } : {}),
    });
    if (running.length === 0 || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}
