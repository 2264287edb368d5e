import { setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import type { VmSnapshot } from '../../activities/migration-contract';
import {
  newWaveStatus,
  waveCounts,
  type MigrationAction,
  type MigrationSettings,
  type VmFinished,
  type WaveStatus,
  type WaveVm,
  type WaveVmState,
} from '../../src/domain/migration';
import { FerryKind, FerryStage, WaveId } from '../../src/domain/search-attributes';
import { summarizeWave, waveSummaryRequestSchema, type WaveSummary } from '../../src/domain/status';
import { workflowNow } from '../clock';
import type { SdnSyncResult } from '../sdn-sync';

/** What one run of the wave hands to the next when it continues as new. */
export interface WaveCarry {
  settings: MigrationSettings;
  /** What discovery found, for the VMs not started yet. */
  snapshots: Record<string, VmSnapshot>;
  status: WaveStatus;
  actions: MigrationAction[];
  imports: VmFinished['imports'];
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
  /** Every action the wave and its VMs took, in the form `plan` predicts them. */
  readonly actions: MigrationAction[];
  /** The finished imports of the wave's VMs, for the measured throughput. */
  readonly imports: VmFinished['imports'];
  /** What discovery found, for the VMs not started yet. */
  readonly snapshots: Record<string, VmSnapshot>;
  /** Unknown until loaded; approvals wait for them (they name the approvers). */
  settings?: MigrationSettings;
  sdn?: SdnSyncResult;

  constructor(
    readonly waveId: string,
    carried: WaveCarry | undefined,
  ) {
    this.status = carried?.status ?? newWaveStatus(waveId);
    this.actions = carried?.actions ?? [];
    this.imports = carried?.imports ?? [];
    this.snapshots = carried?.snapshots ?? {};
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
    const vms = this.status.vms.length > 0 ? `, ${this.status.vms.length} VMs: ${pending} pending, ${running} running, ${finished} finished` : '';
    setCurrentDetails(`wave ${this.waveId}: ${this.status.stage}${vms}`);
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
    if (!parsed.success) throw new Error(`waveSummary request: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(request)'}: ${i.message}`).join('; ')}`);
    return summarizeWave(this.status, { now: workflowNow(), limits: this.settings?.limits }, parsed.data);
  }

  carryOver(settings: MigrationSettings): WaveCarry {
    const pending = this.vmsIn('pending');
    return {
      settings,
      status: this.status,
      actions: this.actions,
      imports: this.imports,
      sdn: this.sdn!,
      snapshots: Object.fromEntries(pending.map((vm) => [vm.moid, this.snapshots[vm.moid]!])),
    };
  }
}
