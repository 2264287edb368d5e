import type { MigrationAction } from './actions';
import type { DecisionRecord } from './status';
import type { MigrationOutcome, MigrationStage, StageTiming } from './status';
import type { Refusal } from './refusal';

export type WaveVmState = 'pending' | 'running' | 'finished';

export interface WaveVm {
  moid: string;
  name: string;
  workflowId: string;
  state: WaveVmState;
  stage?: MigrationStage;
  /** The number of the child's latest stage signal applied (stage signals may arrive out of order). */
  stageSeq?: number;
  outcome?: MigrationOutcome;
  startedAt?: number;
  finishedAt?: number;
  timings?: StageTiming[];
  /** Set when the child failed outright (not a refusal or rejection). */
  error?: string;
  /** How the child's workflow closed when it ended without reporting (terminated, timed out, …). */
  closedAs?: string;
}

/** What a child reports to its wave when it ends. */
export interface VmFinished {
  moid: string;
  outcome?: MigrationOutcome;
  error?: string;
  actions: MigrationAction[];
  timings: StageTiming[];
  imports: Array<{ bytes: number; seconds: number }>;
}

export interface WaveApproval extends DecisionRecord {
  /** VM names approved, or every VM of the wave. */
  vms: string[] | 'all';
}

export interface WaveStatus {
  waveId: string;
  stage: 'discover' | 'networks' | 'migrating' | 'done';
  vms: WaveVm[];
  refused: Array<{ name: string; moid: string; refusals: Refusal[] }>;
  approvals: WaveApproval[];
  /** Approval signals that were not acted on (unknown approver, unknown VM, …), so nothing is silently dropped. */
  ignored: Array<{ message: string; reason: string }>;
  counts: Record<WaveVmState, number>;
  /** Finished imports across the wave, for downtime estimates. */
  importThroughputBytesPerSecond?: number;
}

export function waveCounts(vms: readonly WaveVm[]): Record<WaveVmState, number> {
  const counts: Record<WaveVmState, number> = { pending: 0, running: 0, finished: 0 };
  for (const vm of vms) counts[vm.state] += 1;
  return counts;
}

/** Is this VM covered by the wave's approvals so far? */
export function approvedBy(approvals: readonly WaveApproval[], vmName: string): WaveApproval | undefined {
  return approvals.find((a) => a.vms === 'all' || a.vms.includes(vmName));
}
