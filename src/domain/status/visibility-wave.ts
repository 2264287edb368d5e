import type { MigrationOutcome, MigrationStage, WaveStatus, WaveVm } from '../migration';

/** One VM workflow of a wave as visibility lists it (its search attributes and execution status). */
export interface VisibleVmWorkflow {
  workflowId: string;
  /** `VmName`: set once the VM was assessed. */
  vmName?: string;
  /** `FerryStage`: the stage the VM's workflow entered last. */
  stage?: string;
  running: boolean;
  startMs?: number;
  closeMs?: number;
}

/** Final stages that name the outcome they end in (`done` is a migration that completed). */
const OUTCOME_OF_FINAL_STAGE: Record<string, MigrationOutcome> = {
  done: 'migrated',
  refused: 'refused',
  rejected: 'rejected',
  'approval-expired': 'approval-expired',
  'rolled-back': 'rolled-back',
  cancelled: 'cancelled',
};

/**
 * A wave's status rebuilt from visibility alone, for when the wave's own query is slow: its VM
 * workflows with their stage and whether they still run. VMs whose workflow has not started are not in
 * visibility, so they are not counted; nor are refusals, approvals and throughput, which only the wave
 * knows. A VM workflow is named `migrate-<vcenter>-<moid>`, so the moid is its id's tail; of a VM's
 * runs (a rerun reuses the id) the latest counts.
 */
export function waveFromVisibility(waveId: string, workflows: readonly VisibleVmWorkflow[]): WaveStatus {
  const vms = latestRuns(workflows).map((wf): WaveVm => {
    const moid = /vm-\d+$/.exec(wf.workflowId)?.[0] ?? wf.workflowId;
    const stage = wf.stage as MigrationStage | undefined;
    const outcome = !wf.running && wf.stage !== undefined ? OUTCOME_OF_FINAL_STAGE[wf.stage] : undefined;
    return {
      moid,
      name: wf.vmName ?? moid,
      workflowId: wf.workflowId,
      state: wf.running ? 'running' : 'finished',
      ...(stage !== undefined ? { stage } : {}),
      ...(wf.startMs !== undefined ? { startedAt: wf.startMs } : {}),
      ...(wf.closeMs !== undefined ? { finishedAt: wf.closeMs } : {}),
      ...(outcome !== undefined ? { outcome } : {}),
      ...(!wf.running && outcome === undefined ? { error: `workflow closed in stage ${wf.stage ?? 'unknown'} (see ferry status ${wf.workflowId})` } : {}),
    };
  });
  return { waveId, stage: 'migrating', vms, refused: [], approvals: [], ignored: [], counts: { pending: 0, running: 0, finished: 0 } };
}

/** Each workflow id once: its running run, else the one started last. */
function latestRuns(workflows: readonly VisibleVmWorkflow[]): VisibleVmWorkflow[] {
  const latest = new Map<string, VisibleVmWorkflow>();
  for (const wf of workflows) {
    const seen = latest.get(wf.workflowId);
    const newer = !seen || (wf.running && !seen.running) || (wf.running === seen.running && (wf.startMs ?? 0) > (seen.startMs ?? 0));
    if (newer) latest.set(wf.workflowId, wf);
  }
  return [...latest.values()];
}
