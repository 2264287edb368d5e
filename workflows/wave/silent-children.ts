import { condition, workflowInfo } from '@temporalio/workflow';
import type { WaveVm } from '../../src/domain/migration';
import { workflowNow } from '../clock';
import type { WaveState } from './state';
import { watch } from './watch';

const DEFAULT_CHILD_CHECK_INTERVAL_MS = 5 * 60_000;

/**
 * Waits until one more VM has finished (or Temporal suggests a new run). A VM workflow that was
 * terminated or timed out never reports, so every `intervalMs` the wave looks for VM workflows that
 * closed silently.
 */
export async function waitForReports(wave: WaveState, intervalMs = DEFAULT_CHILD_CHECK_INTERVAL_MS): Promise<void> {
  const finishedBefore = wave.vmsIn('finished').length;
  const reported = () => wave.vmsIn('finished').length > finishedBefore || workflowInfo().continueAsNewSuggested;
  if (!(await condition(reported, intervalMs))) await finishSilentChildren(wave.status.vms);
}

/** Marks the running VMs whose workflow closed without reporting as finished, with how it closed. */
async function finishSilentChildren(vms: WaveVm[]): Promise<void> {
  const running = vms.filter((v) => v.state === 'running');
  if (running.length === 0) return;
  let closed: Awaited<ReturnType<typeof watch.closedWorkflows>>;
  try {
    closed = await watch.closedWorkflows.executeWithOptions(
      { summary: `look for VM workflows closed without reporting (${running.length} running)` },
      [{ workflowIds: running.map((v) => v.workflowId) }],
    );
  } catch {
    return; // looked at again after the next interval
  }
  for (const { workflowId, status } of closed) {
    const vm = running.find((v) => v.workflowId === workflowId);
    // Its report may have come in while the activity ran.
    if (!vm || vm.state !== 'running') continue;
    vm.state = 'finished';
    vm.finishedAt = workflowNow();
    vm.closedAs = status;
    vm.error = `workflow ${workflowId} closed (${status}) without reporting to the wave`;
  }
}
