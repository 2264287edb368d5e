import { condition, isCancellation, sleep, workflowInfo } from '@temporalio/workflow';
import type { WaveVm } from '../../src/domain/migration';
import { workflowNow } from '../clock';
import type { WaveState } from './state';
import { watch } from './watch';

const DEFAULT_CHILD_CHECK_INTERVAL_MS = 5 * 60_000;

/**
 * The wave's look for VM workflows that closed without reporting, on one timer of its own that runs
 * from the first wait to the end of the run. A timer per wait (the earlier form) made the wave's
 * commands depend on how many reports one workflow task handled between two waits: a timer started
 * and cancelled inside one task still takes a timer id, and a replay that met the same reports in
 * another grouping asked for other ids (chaos seed 55947: "Timer fired event did not have expected timer
 * id 17, it was 18", the wave stuck). One free-running timer fires as often live as on replay.
 */
let checkTimer: { due: boolean } | undefined;

function startCheckTimer(intervalMs: number): { due: boolean } {
  const timer = { due: false };
  (async () => {
    for (;;) {
      await sleep(intervalMs, { summary: 'look for VM workflows closed without reporting' });
      timer.due = true;
    }
  })().catch((err: unknown) => {
    // A cancelled wave takes its timer with it.
    if (!isCancellation(err)) throw err;
  });
  return timer;
}

/**
 * Waits until one more VM has finished (or Temporal suggests a new run). A VM workflow that was
 * terminated or timed out never reports, so every `intervalMs` the wave looks for VM workflows that
 * closed silently.
 */
export async function waitForReports(wave: WaveState, intervalMs = DEFAULT_CHILD_CHECK_INTERVAL_MS): Promise<void> {
  const finishedBefore = wave.vmsIn('finished').length;
  const reported = () => wave.vmsIn('finished').length > finishedBefore || workflowInfo().continueAsNewSuggested;
  const timer = (checkTimer ??= startCheckTimer(intervalMs));
  await condition(() => reported() || timer.due);
  if (timer.due && !reported()) {
    timer.due = false;
    await finishSilentChildren(wave.status.vms);
  }
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
