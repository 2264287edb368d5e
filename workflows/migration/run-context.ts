import {
  CancellationScope,
  getExternalWorkflowHandle,
  setHandler,
  upsertSearchAttributes,
  type ExternalWorkflowHandle,
} from '@temporalio/workflow';
import type { VmSnapshot } from '../../activities/migration-contract';
import { cutoverPlanDigest } from '../../src/domain/approvals';
import {
  cutoverPlan,
  cutoverSchedule,
  measuredThroughput,
  refusalSummary,
  stageSeconds,
  verificationSummary,
  type CancellationRecord,
  type CutoverPlan,
  type CutoverSchedule,
  type CutoverWindow,
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
} from '../../src/domain/migration';
import { placedVmSettings, placementOfSettings, type VmPlacement } from '../../src/domain/placement';
import { WaveId } from '../../src/domain/search-attributes';
import { DOWNTIME_PRIORITY } from '../../src/domain/task-queues';
import {
  cutoverPlanQuery,
  importThroughputSignal,
  vmFinishedSignal,
  vmPlacedSignal,
  vmStageSignal,
} from '../../src/domain/messages';
import { workflowNow } from '../clock';
import { activityProfiles, reads, type ActivityProfiles } from '../vm/proxies';
import { VmRun } from '../vm/run';
import { CutoverGate } from './cutover-gate';
import { PlacementMoves } from './place-vm';
import type { DiskSources } from './stages/disk-sources';

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

/** What validation found out about the VM, for the steps after it. */
export interface PlannedVm {
  snapshot: VmSnapshot;
  assessment: VmAssessment;
  vnetPlan: InventoryAssessment['vnetPlan'];
  vmid: number;
  occupancy: VmidOccupancy;
}

export function newMigrationStatus(input: MigrateVmInput): MigrationStatus {
  return {
    vm: input.moid,
    moid: input.moid,
    stage: 'validate',
    actions: [],
    timings: [],
    waits: [],
    decisions: [],
    ignored: [],
    refusals: [],
    imports: [],
    ...(input.placement ? { placement: input.placement } : {}),
  };
}

/**
 * One migration run, as every step sees it: the kernel's run (status, stages, actions, waits) with the
 * run's settings, activity profiles and human gate, the VM as validation planned it, and its wave told
 * of each stage.
 */
export class MigrationRun extends VmRun<MigrationStage, MigrationStatus, MigrationAction> {
  private readonly calls: ActivityProfiles;
  /** The same profiles at the downtime priority, for the cutover's quick steps (MigrationStep.downtime). */
  private readonly downtimeCalls: ActivityProfiles;
  private downtimeSteps = 0;
  readonly gate: CutoverGate;
  /** `ferry place` moves: the shell and the cutover wait for one under way. */
  readonly moves: PlacementMoves;
  /** Where each disk is read from at the cutover (set by its first step, changed by a conversion). */
  sources: DiskSources = {};
  /** Slots this execution asked to import, in any attempt: one found there on a retry is ours. */
  readonly importsAsked = new Set<string>();
  private readonly wave?: ExternalWorkflowHandle;
  private stageSeq = 0;
  private planned?: PlannedVm;
  private assessment?: VmAssessment;
  private throughput: Throughput;

  constructor(
    readonly input: MigrateVmInput,
    status: MigrationStatus,
    public settings: MigrationSettings,
  ) {
    super(status, (s) => s.actions, input.moid);
    this.wave = input.waveWorkflowId ? getExternalWorkflowHandle(input.waveWorkflowId) : undefined;
    if (input.waveId) upsertSearchAttributes([{ key: WaveId, value: input.waveId }]);
    this.throughput = input.throughput ?? measuredThroughput([]);
    this.calls = activityProfiles(settings);
    this.downtimeCalls = activityProfiles({ ...settings, priority: DOWNTIME_PRIORITY });
    const plan = () => {
      const current = this.plan();
      return current && cutoverPlanDigest(current);
    };
    const signing = { policy: settings.approvals, wave: input.waveWorkflowId, plan };
    this.gate = new CutoverGate(status, settings.approvers, signing, settings.cutover.mode, () => this.showDetails());
    this.moves = new PlacementMoves(this);
    setHandler(importThroughputSignal, (t) => {
      this.throughput = t;
    });
    setHandler(cutoverPlanQuery, () => {
      const current = this.plan();
      const schedule = this.schedule();
      // `schedule` is not part of what an approver signs (see cutoverPlanDigest).
      return current && schedule ? { ...current, schedule } : current;
    });
  }

  /**
   * The profiles a step calls activities through: inside the VM's downtime at DOWNTIME_PRIORITY, so that
   * a server that orders by priority hands them out first and the worker that runs them pauses its
   * conversions meanwhile (migration.conversion.yieldToCutovers).
   */
  get acts(): ActivityProfiles {
    return this.downtimeSteps > 0 ? this.downtimeCalls : this.calls;
  }

  /** Runs one of the cutover's quick steps (MigrationStep.downtime): its activities at the downtime priority. */
  async inDowntime<T>(step: () => Promise<T>): Promise<T> {
    this.downtimeSteps += 1;
    try {
      return await step();
    } finally {
      this.downtimeSteps -= 1;
    }
  }

  get moid(): string {
    return this.input.moid;
  }

  /** When the cutover will start, as of now: from its approval (`--at`) and the wave's window; none without either. */
  schedule(): CutoverSchedule | undefined {
    const { cutoverWindow } = this.input;
    const notBefore = this.gate.notBefore;
    if (!cutoverWindow && notBefore === undefined) return undefined;
    return cutoverSchedule(cutoverWindow, notBefore, workflowNow());
  }

  /** `ferry cancel`, once accepted. */
  get cancellation(): CancellationRecord | undefined {
    return this.gate.cancellation;
  }

  /** The VM as validation planned it, if validation got that far. */
  get plannedVm(): PlannedVm | undefined {
    return this.planned;
  }

  /** The VM as validation planned it (the steps after validation). */
  get vm(): PlannedVm {
    if (!this.planned) throw new Error('migration run: the VM is used before validation planned it');
    return this.planned;
  }

  set vm(planned: PlannedVm) {
    this.planned = planned;
  }

  private plan(): CutoverPlan | undefined {
    if (!this.assessment) return undefined;
    const { settings } = this;
    const conversion = this.status.conversion?.plan ?? this.assessment.conversion;
    const plan = cutoverPlan(
      this.assessment,
      settings.cutover.mode,
      settings.targetStorage,
      this.throughput,
      this.planned?.snapshot.vm.powerState,
      conversion,
    );
    const disks = this.assessment.disks.map((d) => d.source);
    return { ...plan, placement: this.status.placement ?? placementOfSettings(settings, disks) };
  }

  /**
   * `ferry place` moved the VM: from now on every step runs with the new node and disk storages, the
   * status and the cutover plan show them, and the wave is told.
   */
  placeAt(placement: VmPlacement): void {
    this.settings = placedVmSettings(this.settings, placement);
    this.status.placement = placement;
    if (this.wave) void this.wave.signal(vmPlacedSignal, { moid: this.moid, placement }).catch(() => undefined);
  }

  /** The VM as assessed: the status, the search attributes and the cutover plan name it from now on. */
  assessed(assessment: VmAssessment): void {
    this.assessment = assessment;
    this.status.vm = assessment.pveName;
    this.status.vmid = assessment.vmid;
    this.named(assessment.name, assessment.vmid);
  }

  /** Ends the run with an outcome, in its final stage. */
  finish(outcome: MigrateVmResult['outcome'], stage: MigrationStage): MigrateVmResult {
    this.end(stage);
    this.status.outcome = outcome;
    return { ...this.status, outcome };
  }

  /** Ends the run without migrating the VM, saying why. */
  refuse(refusals: Refusal[]): MigrateVmResult {
    this.status.refusals = refusals;
    this.record({ kind: 'refuse', vm: this.status.vm, reasons: refusals.map((r) => r.reason) });
    return this.finish('refused', 'refused');
  }

  /** Each stage entered is told to the wave (numbered: signals may arrive out of order). */
  protected override entered(stage: MigrationStage, at: number): void {
    if (!this.wave) return;
    this.stageSeq += 1;
    const seq = this.stageSeq;
    void this.wave.signal(vmStageSignal, { moid: this.moid, stage, at, seq }).catch(() => undefined);
  }
}

/** Opens the run: its settings (the wave's, else the worker's configuration), gate and handlers. */
export async function openMigrationRun(input: MigrateVmInput, status: MigrationStatus): Promise<MigrationRun> {
  const settings =
    input.settings ??
    (await reads.loadMigrationSettings.executeWithOptions({ summary: 'load the migration settings' }, []));
  return new MigrationRun(input, status, settings);
}

/** Tells the wave, if any, how the run ended, even when it was cancelled or failed. */
export async function reportToWave(input: MigrateVmInput, status: MigrationStatus): Promise<void> {
  if (!input.waveWorkflowId) return;
  const wave = getExternalWorkflowHandle(input.waveWorkflowId);
  const relocateSeconds = stageSeconds(status.timings, 'relocate');
  await CancellationScope.nonCancellable(() =>
    wave
      .signal(vmFinishedSignal, {
        moid: input.moid,
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
