import { ParentClosePolicy, startChild, workflowInfo, WorkflowIdReusePolicy } from '@temporalio/workflow';
import { rerunDecision, vmWorkflowSummary, type MigrationSettings, type WaveVm } from '../../src/domain/migration';
import { placedVmSettings } from '../../src/domain/placement';
import { workflowNow } from '../clock';
import { migrateVm } from '../migrate-vm';
import { mainQueue } from '../queues';
import type { WaveState } from './state';
import { watch } from './watch';

/**
 * Starts the VM's migration workflow. A VM that has a migration
 * workflow already is looked at first, so it is never migrated twice: it is started again only when
 * its earlier run left VMware the VM's home; otherwise the VM is finished here with the reason.
 */
export async function startVmWorkflow(vm: WaveVm, wave: WaveState, waveSettings: MigrationSettings): Promise<void> {
  // The VM runs on the node and storages placement chose (unplaced: the wave's node and targetStorage).
  const settings = placedVmSettings(waveSettings, vm.placement);
  vm.state = 'running';
  vm.startedAt = workflowNow();
  wave.showDetails();
  // The VM workflow reads its VM itself: a reference (the moid), not an inventory copy, in its input.
  const { cutoverWindow } = wave.status;
  const start = (workflowIdReusePolicy: WorkflowIdReusePolicy) =>
    startChild(migrateVm, {
      workflowId: vm.workflowId,
      // The wave runs on the coordination queue; its VMs run on the main queue.
      taskQueue: mainQueue(),
      args: [
        {
          moid: vm.moid,
          settings,
          waveId: wave.waveId,
          waveWorkflowId: workflowInfo().workflowId,
          throughput: wave.importThroughput(),
          ...(cutoverWindow ? { cutoverWindow } : {}),
          ...(vm.placement ? { placement: vm.placement } : {}),
        },
      ],
      // The VM's workflow outlives a continue-as-new of the wave and reports back by signal.
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy,
      staticSummary: vmWorkflowSummary(vm.name, vm.moid, settings),
      staticDetails: `wave ${wave.waveId}, moid ${vm.moid}`,
    });
  if (await started(() => start(WorkflowIdReusePolicy.REJECT_DUPLICATE))) return;
  const previous = await watch.previousRun.executeWithOptions(
    { summary: `look up the earlier run of ${vm.workflowId}` },
    [{ workflowId: vm.workflowId }],
  );
  const decision = rerunDecision(previous, vm.workflowId);
  // The earlier run ended with VMware still the VM's home (refused, rejected, rolled back, …).
  if (decision.rerun && (await started(() => start(WorkflowIdReusePolicy.ALLOW_DUPLICATE)))) return;
  vm.state = 'finished';
  vm.finishedAt = workflowNow();
  vm.error = decision.rerun
    ? `not started: workflow ${vm.workflowId} was started by someone else meanwhile; see it there`
    : decision.reason;
}

/** False when the workflow id is taken already; any other failure to start fails the wave. */
async function started(start: () => Promise<unknown>): Promise<boolean> {
  try {
    await start();
    return true;
  } catch (err) {
    if (err instanceof Error && err.name === 'WorkflowExecutionAlreadyStartedError') return false;
    throw err;
  }
}
