import {
  CancellationScope,
  getExternalWorkflowHandle,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  type ExternalWorkflowHandle,
} from '@temporalio/workflow';
import type { VmSnapshot } from '../../activities/migration-contract';
import {
  cutoverPlan,
  cutoverSchedule,
  type CancellationRecord,
  type CutoverSchedule,
  type CutoverWindow,
  measuredThroughput,
  refusalSummary,
  stageSeconds,
  type CutoverPlan,
  type InventoryAssessment,
  type MigrateVmResult,
  type MigrationAction,
  type MigrationSettings,
  type MigrationStage,
  type MigrationStatus,
  type Refusal,
  type Throughput,
  type VmAssessment,
  type VmidOccupancy,
  verificationSummary,
} from '../../src/domain/migration';
import { cutoverPlanDigest } from '../../src/domain/approvals';
import { placedVmSettings, placementOfSettings, type VmPlacement } from '../../src/domain/placement';
import type { WaitRecord } from '../../src/domain/waits';
import { FerryKind, FerryStage, VmId, VmName, WaveId } from '../../src/domain/search-attributes';
import {
  cutoverPlanQuery,
  importThroughputSignal,
  migrationStatusQuery,
  vmFinishedSignal,
  vmPlacedSignal,
  vmStageSignal,
} from '../../src/domain/messages';
import { workflowNow } from '../clock';
import { failureMessage } from '../failures';
import { CutoverGate } from './cutover-gate';
import { handlePlacementMoves } from './place-vm';
import { longActivities, reads, timingOf } from './proxies';

export interface MigrateVmInput {
  moid: string;
  /** Resolved once by the wave; a standalone run loads them from the worker's configuration. */
  settings?: MigrationSettings;
  waveId?: string;
  /** Import throughput measured so far by the wave (for the cutover plan's downtime estimate). */
  throughput?: Throughput;
  /** The wave to tell about stage changes and the end (its id survives the wave's continue-as-new). */
  waveWorkflowId?: string;
  /** The VM as the wave discovered it; a standalone run reads it. */
  snapshot?: VmSnapshot;
  /** The wave's cutover window: an approved cutover starts only inside it. */
  cutoverWindow?: CutoverWindow;
  /** Where the wave placed the VM (the node's memory commitment with it), for the status and the cutover plan. */
  placement?: VmPlacement;
}

/** What validation found out about the VM, for the stages after it. */
export interface PlannedVm {
  snapshot: VmSnapshot;
  assessment: VmAssessment;
  vnetPlan: InventoryAssessment['vnetPlan'];
  vmid: number;
  occupancy: VmidOccupancy;
}

/** What the run settled on when it began: its settings, the activities with their timeouts, the human gate. */
interface Settled {
  settings: MigrationSettings;
  acts: ReturnType<typeof longActivities>;
  gate: CutoverGate;
}

/**
 * One migration run, as every stage sees it: the status a query shows, the helpers that record an
 * action or enter a stage (upserting FerryStage and telling the wave), and, once settled, the settings,
 * activities and gate.
 */
export class MigrationRun {
  readonly status: MigrationStatus;
  private readonly wave?: ExternalWorkflowHandle;
  private seq = 0;
  private settled?: Settled;
  private planned?: PlannedVm;
  private assessment?: VmAssessment;
  private throughput: Throughput;
  /** A `ferry place` is under way: the shell stage and the cutover wait for it (see place-vm.ts). */
  placing = false;
  /** A `ferry place` failed after the old shell was destroyed: the run cannot cut over without a shell. */
  placeFailure?: string;

  constructor(readonly input: MigrateVmInput) {
    this.wave = input.waveWorkflowId ? getExternalWorkflowHandle(input.waveWorkflowId) : undefined;
    this.status = newStatus(input.moid);
    if (input.placement) this.status.placement = input.placement;
    this.throughput = input.throughput ?? measuredThroughput([]);
    setHandler(migrationStatusQuery, () => this.status);
    upsertSearchAttributes([
      { key: FerryKind, value: 'migrate' },
      ...(input.waveId ? [{ key: WaveId, value: input.waveId }] : []),
    ]);
  }

  get moid(): string {
    return this.input.moid;
  }

  /** Loads the settings (unless the wave passed them) and opens the run's gate and plan query. */
  async settle(): Promise<void> {
    const settings =
      this.input.settings ??
      (await reads.loadMigrationSettings.executeWithOptions({ summary: 'load the migration settings' }, []));
    // The gate's constructor delivers buffered approvals at once, before `this.settled` is assigned: until
    // then the settings just loaded are the run's (a `ferry place` later replaces them in `this.settled`).
    const planned = (): string | undefined => {
      const plan = this.plan(this.settled?.settings ?? settings);
      return plan && cutoverPlanDigest(plan);
    };
    const signing = { policy: settings.approvals, wave: this.input.waveWorkflowId, plan: planned };
    this.settled = {
      settings,
      acts: longActivities(timingOf(settings)),
      gate: new CutoverGate(this.status, settings.approvers, signing, settings.cutover.mode),
    };
    handlePlacementMoves(this);
    setHandler(importThroughputSignal, (t) => {
      this.throughput = t;
    });
    setHandler(cutoverPlanQuery, () => {
      const plan = this.plan(this.settled?.settings ?? settings);
      const schedule = this.schedule();
      // `schedule` is not part of what an approver signs (see cutoverPlanDigest).
      return plan && schedule ? { ...plan, schedule } : plan;
    });
  }

  /** When the cutover will start, as of now: from its approval (`--at`) and the wave's window; none without either. */
  schedule(): CutoverSchedule | undefined {
    const { cutoverWindow } = this.input;
    const notBefore = this.settled?.gate.notBefore;
    if (!cutoverWindow && notBefore === undefined) return undefined;
    return cutoverSchedule(cutoverWindow, notBefore, workflowNow());
  }

  /** `ferry cancel`, once accepted. */
  get cancellation(): CancellationRecord | undefined {
    return this.settled?.gate.cancellation;
  }

  /** The VM as validation planned it, if validation got that far. */
  get plannedVm(): PlannedVm | undefined {
    return this.planned;
  }

  private plan(settings: MigrationSettings): CutoverPlan | undefined {
    if (!this.assessment) return undefined;
    const conversion = this.status.conversion?.plan ?? this.assessment.conversion;
    const plan = cutoverPlan(
      this.assessment,
      settings.cutover.mode,
      settings.targetStorage,
      this.throughput,
      this.planned?.snapshot.vm.powerState,
      conversion,
    );
    const placement =
      this.status.placement ??
      placementOfSettings(
        settings,
        this.assessment.disks.map((d) => d.source),
      );
    return { ...plan, placement };
  }

  /**
   * `ferry place` moved the VM: from now on every stage runs with the new node and disk storages, the
   * status and the cutover plan show them, and the wave is told.
   */
  placeAt(placement: VmPlacement): void {
    const settled = this.require(this.settled, 'settings');
    settled.settings = placedVmSettings(settled.settings, placement);
    this.status.placement = placement;
    if (this.wave) void this.wave.signal(vmPlacedSignal, { moid: this.moid, placement }).catch(() => undefined);
  }

  get settings(): MigrationSettings {
    return this.require(this.settled, 'settings').settings;
  }

  get acts(): Settled['acts'] {
    return this.require(this.settled, 'activities').acts;
  }

  get gate(): CutoverGate {
    return this.require(this.settled, 'gate').gate;
  }

  /** The VM as assessed: the status, the search attributes and the cutover plan name it from now on. */
  assessed(assessment: VmAssessment): void {
    this.assessment = assessment;
    this.status.vm = assessment.pveName;
    this.status.vmid = assessment.vmid;
    upsertSearchAttributes([
      { key: VmName, value: assessment.name },
      ...(assessment.vmid !== undefined ? [{ key: VmId, value: assessment.vmid }] : []),
    ]);
  }

  /** The VM as validation planned it. */
  get vm(): PlannedVm {
    return this.require(this.planned, 'planned VM');
  }

  set vm(planned: PlannedVm) {
    this.planned = planned;
  }

  enter(stage: MigrationStage): void {
    const now = workflowNow();
    const open = this.status.timings.at(-1);
    if (open && open.endedAt === undefined) open.endedAt = now;
    this.status.timings.push({ stage, startedAt: now });
    this.status.stage = stage;
    upsertSearchAttributes([{ key: FerryStage, value: stage }]);
    setCurrentDetails(`${this.status.vm}: ${stage}`);
    this.seq += 1;
    const seq = this.seq;
    if (this.wave)
      void this.wave.signal(vmStageSignal, { moid: this.moid, stage, at: now, seq }).catch(() => undefined);
  }

  record(action: MigrationAction): void {
    this.status.actions.push(action);
  }

  waited(wait: WaitRecord): void {
    this.status.waits.push(wait);
  }

  /** Ends the run with an outcome, in its final stage. */
  finish(outcome: MigrateVmResult['outcome'], stage: MigrationStage): MigrateVmResult {
    this.enter(stage);
    this.status.timings.at(-1)!.endedAt = this.status.timings.at(-1)!.startedAt;
    this.status.outcome = outcome;
    return { ...this.status, outcome };
  }

  /** Ends the run without migrating the VM, saying why. */
  refuse(refusals: Refusal[]): MigrateVmResult {
    this.status.refusals = refusals;
    this.record({ kind: 'refuse', vm: this.status.vm, reasons: refusals.map((r) => r.reason) });
    return this.finish('refused', 'refused');
  }

  failed(err: unknown): void {
    this.status.error = failureMessage(err);
  }

  /** Tells the wave how the run ended, even when it was cancelled. */
  async reportFinished(): Promise<void> {
    const wave = this.wave;
    if (!wave) return;
    const { status } = this;
    const relocateSeconds = stageSeconds(status.timings, 'relocate');
    await CancellationScope.nonCancellable(() =>
      wave
        .signal(vmFinishedSignal, {
          moid: this.moid,
          outcome: status.outcome,
          error: status.outcome ? undefined : (status.error ?? `failed in stage ${status.stage}`),
          ...(status.outcome === 'refused' ? { refusal: refusalSummary(status.refusals, status.shellKept) } : {}),
          // Not its actions and timings: they stay in this workflow's result, and the wave stays small.
          stage: status.stage,
          ...(status.vmid !== undefined ? { vmid: status.vmid } : {}),
          ...(relocateSeconds !== undefined ? { relocateSeconds } : {}),
          imports: status.imports.map((i) => ({ bytes: i.bytes, seconds: i.seconds })),
          ...(status.verification ? { verification: verificationSummary(status.verification) } : {}),
          ...(status.cancellation ? { cancellation: status.cancellation } : {}),
        })
        .catch(() => undefined),
    );
  }

  private require<T>(value: T | undefined, what: string): T {
    if (value === undefined) throw new Error(`migration run: ${what} used before the stage that sets it`);
    return value;
  }
}

function newStatus(moid: string): MigrationStatus {
  return {
    vm: moid,
    moid,
    stage: 'validate',
    actions: [],
    timings: [],
    waits: [],
    decisions: [],
    ignored: [],
    refusals: [],
    imports: [],
  };
}
