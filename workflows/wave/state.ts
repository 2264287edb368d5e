import { setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import {
  measuredThroughput,
  newWaveStatus,
  packWaveStatus,
  unpackWaveStatus,
  waveCounts,
  type MigrationAction,
  type MigrationSettings,
  type PackedWaveStatus,
  type Throughput,
  type WaveStatus,
  type WaveVm,
  type WaveVmState,
} from '../../src/domain/migration';
import { FerryKind, FerryStage, WaveId } from '../../src/domain/search-attributes';
import { ignoredDetails } from '../../src/domain/vm-run';
import { summarizeWave, waveSummaryRequestSchema, type WaveSummary } from '../../src/domain/status';
import { workflowNow } from '../clock';
import type { SdnSyncResult } from '../sdn-sync';

/**
 * What one run of the wave hands to the next when it continues as new: bounded per VM (its row in the
 * status's VM table), however many VMs the wave has.
 */
export interface WaveCarry {
  settings: MigrationSettings;
  status: PackedWaveStatus | WaveStatus;
  /** The wave's own actions (SDN, refusals); each VM's are in its own workflow. */
  waveActions?: MigrationAction[];
  sdn: SdnSyncResult;
}

/** Marks this run as the wave's in the UI and takes up its state: new, or carried over from the last run. */
export function openWave(waveId: string, carried: WaveCarry | undefined): WaveState {
  upsertSearchAttributes([
    { key: FerryKind, value: 'wave' },
    { key: WaveId, value: waveId },
  ]);
  return new WaveState(waveId, carried);
}

/** The wave's bookkeeping, shared by its stages and its message handlers, and carried over continue-as-new. */
export class WaveState {
  readonly status: WaveStatus;
  /**
   * The wave's own actions (SDN, the VMs it refused), in the form `plan` predicts them; each VM's
   * actions are in its own workflow's result.
   */
  readonly actions: MigrationAction[];
  /** Unknown until loaded; approvals wait for them (they name the approvers). */
  settings?: MigrationSettings;
  sdn?: SdnSyncResult;

  constructor(
    readonly waveId: string,
    carried: WaveCarry | undefined,
  ) {
    this.status = carried ? unpackWaveStatus(carried.status) : newWaveStatus(waveId);
    this.actions = carried?.waveActions ?? [];
    this.settings = carried?.settings;
    this.sdn = carried?.sdn;
  }

  setStage(stage: WaveStatus['stage']): void {
    this.status.stage = stage;
    upsertSearchAttributes([{ key: FerryStage, value: stage }]);
    this.showDetails();
  }

  /** The Temporal UI's current details: the stage and the VMs' counts. */
  showDetails(): void {
    const { pending, running, finished } = waveCounts(this.status.vms);
    const vms =
      this.status.vms.length > 0
        ? `, ${this.status.vms.length} VMs: ${pending} pending, ${running} running, ${finished} finished`
        : '';
    setCurrentDetails(`wave ${this.waveId}: ${this.status.stage}${vms}${ignoredDetails(this.status.ignored)}`);
  }

  /**
   * The wave failed before it started these VMs: each gets that as its end, so no VM is left without an
   * outcome in any view (status, report, the chaos suite's count).
   */
  endPending(why: string): void {
    const now = workflowNow();
    for (const vm of this.vmsIn('pending')) Object.assign(vm, { state: 'finished', finishedAt: now, error: why });
    this.showDetails();
  }

  vm(moid: string): WaveVm | undefined {
    return this.status.vms.findLast((vm) => vm.moid === moid);
  }

  vmsIn(state: WaveVmState): WaveVm[] {
    return this.status.vms.filter((vm) => vm.state === state);
  }

  /** The status as the query and the result show it, counts up to date. */
  report(): WaveStatus {
    return { ...this.status, counts: waveCounts(this.status.vms) };
  }

  /**
   * The wave at any size: counts, ETA and one page of rows. A query's answer is bounded by the page,
   * so it stays small and quick at 1,000 VMs; a bad request is an error naming the field.
   */
  summary(request: unknown): WaveSummary {
    const parsed = waveSummaryRequestSchema.safeParse(request ?? {});
    if (!parsed.success)
      throw new Error(
        `waveSummary request: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(request)'}: ${i.message}`).join('; ')}`,
      );
    return summarizeWave(this.status, { now: workflowNow(), limits: this.settings?.limits }, parsed.data);
  }

  /** The measured import rate so far, for the VMs' downtime estimates. */
  importThroughput(): Throughput {
    return measuredThroughput(this.status.importTotals ? [this.status.importTotals] : []);
  }

  carryOver(settings: MigrationSettings): WaveCarry {
    return { settings, status: packWaveStatus(this.status), waveActions: this.actions, sdn: this.sdn! };
  }

  /** What the wave's result holds: the status with a compact row per VM, and the wave's own actions. */
  result(): { status: PackedWaveStatus; waveActions: MigrationAction[]; sdn: SdnSyncResult } {
    return { status: packWaveStatus(this.report()), waveActions: this.actions, sdn: this.sdn! };
  }
}
