import type { MigrationOutcome, MigrationStage, WaveStatus, WaveVm } from '../migration';
// Types only: a runtime import of the zod schemas would make this module's evaluation freeze them in the
// workflow sandbox's shared modules (worker/workflow-bundle.ts shares domain files that import no zod).
import type { WaveSummary, WaveSummaryRequest } from './wave-summary';

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
      ...(!wf.running && outcome === undefined
        ? { error: `workflow closed in stage ${wf.stage ?? 'unknown'} (see ferry status ${wf.workflowId})` }
        : {}),
    };
  });
  return {
    waveId,
    stage: 'migrating',
    vms,
    refused: [],
    approvals: [],
    ignored: [],
    counts: { pending: 0, running: 0, finished: 0 },
  };
}

/** Each workflow id once: its running run, else the one started last. */
function latestRuns(workflows: readonly VisibleVmWorkflow[]): VisibleVmWorkflow[] {
  const latest = new Map<string, VisibleVmWorkflow>();
  for (const wf of workflows) {
    const seen = latest.get(wf.workflowId);
    const newer =
      !seen ||
      (wf.running && !seen.running) ||
      (wf.running === seen.running && (wf.startMs ?? 0) > (seen.startMs ?? 0));
    if (newer) latest.set(wf.workflowId, wf);
  }
  return [...latest.values()];
}

/** Every stage a VM workflow can show in `FerryStage` (a record, so a new stage fails to compile until listed). */
const STAGE_SET: Record<MigrationStage, true> = {
  validate: true,
  networks: true,
  shell: true,
  relocate: true,
  inspect: true,
  'awaiting-approval': true,
  'awaiting-window': true,
  shutdown: true,
  convert: true,
  import: true,
  verify: true,
  'verify-guest': true,
  start: true,
  move: true,
  'awaiting-decision': true,
  rollback: true,
  done: true,
  refused: true,
  rejected: true,
  'approval-expired': true,
  'rolled-back': true,
  cancelled: true,
};
export const VISIBLE_STAGES = Object.keys(STAGE_SET) as MigrationStage[];

/** Stages whose VMs need a person, as the wave's summary marks them (running waits, closed failures). */
export const ATTENTION_STAGES: { running: readonly MigrationStage[]; closed: readonly MigrationStage[] } = {
  running: VISIBLE_STAGES.filter((s) => s.startsWith('awaiting-')),
  closed: ['rolled-back', 'approval-expired', 'rejected'],
};

/** How many of a wave's VM workflows visibility counts, in total and per `FerryStage`, running or closed. */
export interface VisibleCounts {
  running: number;
  closed: number;
  stages: Partial<Record<string, { running: number; closed: number }>>;
  /** VM workflows that need a person (the `attention` filter's matches). */
  attention: number;
}

/**
 * A wave's summary from visibility's counts plus one bounded page of rows: `page` is the summary of
 * those rows alone (`summarizeWave(waveFromVisibility(…))` of at most the rows up to the page's end,
 * those needing a person first), whose counts this replaces; its cost does not grow with the wave.
 * VMs whose workflow has not set a stage yet count under `running`.
 */
export function summaryFromVisibleCounts(
  page: WaveSummary,
  counts: VisibleCounts,
  request: WaveSummaryRequest,
): WaveSummary {
  const stages: Record<string, number> = {};
  const outcomes: Record<string, number> = {};
  let staged = { running: 0, closed: 0 };
  for (const [stage, n] of Object.entries(counts.stages)) {
    if (!n || n.running + n.closed === 0) continue;
    stages[stage] = n.running + n.closed;
    staged = { running: staged.running + n.running, closed: staged.closed + n.closed };
    if (n.closed > 0) {
      const outcome = OUTCOME_OF_FINAL_STAGE[stage] ?? 'failed';
      outcomes[outcome] = (outcomes[outcome] ?? 0) + n.closed;
    }
  }
  const unstaged = { running: counts.running - staged.running, closed: counts.closed - staged.closed };
  if (unstaged.running > 0) stages.running = unstaged.running;
  if (unstaged.closed > 0) {
    stages.finished = unstaged.closed;
    outcomes.failed = (outcomes.failed ?? 0) + unstaged.closed;
  }
  const filter = request.filter ?? 'all';
  return {
    ...page,
    vms: counts.running + counts.closed,
    counts: { pending: 0, running: counts.running, finished: counts.closed },
    stages,
    outcomes,
    page: { ...page.page, matching: filter === 'attention' ? counts.attention : counts.running + counts.closed },
    source: 'visibility',
  };
}
