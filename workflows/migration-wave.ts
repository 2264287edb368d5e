import {
  allHandlersFinished,
  condition,
  continueAsNew,
  executeChild,
  getExternalWorkflowHandle,
  ParentClosePolicy,
  patched,
  proxyActivities,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { VmSnapshot, WaveSelection } from '../activities/migration-contract';
import {
  approvedBy,
  rerunDecision,
  assessInventory,
  decisionProblem,
  measuredThroughput,
  migrateVmWorkflowId,
  waveCounts,
  type CutoverApproval,
  type CutoverDecision,
  type MigrationAction,
  type MigrationSettings,
  type WaveApproval,
  type WaveStatus,
  type WaveVm,
} from '../src/domain/migration';
import { FerryKind, FerryStage, WaveId } from '../src/domain/search-attributes';
import { workflowNow } from './clock';
import {
  approveCutoverSignal,
  approveWaveSignal,
  approveWaveUpdate,
  importThroughputSignal,
  vmFinishedSignal,
  vmStageSignal,
  waveStatusQuery,
} from '../src/messages';
import { migrateVm } from './migrate-vm';
import { estateReads, reads } from './migration/proxies';
import { sdnSync, type SdnSyncResult } from './sdn-sync';

export interface MigrationWaveInput {
  waveId: string;
  selection: WaveSelection;
  /** VM workflows running at once (those waiting for approval count). */
  maxConcurrent?: number;
  /** Start a new run (continue-as-new) after this many VM workflows were started in one run (default: when Temporal suggests it). */
  continueAsNewAfter?: number;
  /** Approve every VM up front (recorded like any approval; the approver must be known). For labs and benchmarks. */
  autoApprove?: CutoverDecision;
  /** How often the wave looks for VM workflows that closed without reporting (default 5 minutes). */
  childCheckIntervalMs?: number;
  /** State carried over continue-as-new. */
  carried?: WaveCarry;
}

interface WaveCarry {
  settings: MigrationSettings;
  /** What discovery found, for the VMs not started yet. */
  snapshots: Record<string, VmSnapshot>;
  status: WaveStatus;
  actions: MigrationAction[];
  imports: Array<{ bytes: number; seconds: number }>;
  sdn: SdnSyncResult;
}

export interface MigrationWaveResult {
  status: WaveStatus;
  /** Every action the wave and its VMs took, in the form `plan` predicts them. */
  actions: MigrationAction[];
  sdn: SdnSyncResult;
}

const DEFAULT_CONCURRENCY = 50;
const DEFAULT_CHILD_CHECK_INTERVAL_MS = 5 * 60_000;
const CHILD_CHECK_PATCH = 'wave-child-check';

const watch = proxyActivities<Activities>({ startToCloseTimeout: '1m', retry: { initialInterval: '2s', maximumInterval: '1m', maximumAttempts: 5 } });

/**
 * One wave: one discovery, one SDN sync, then a `migrateVm` child per translatable VM with bounded
 * fan-out. Children outlive a continue-as-new of the wave (they report back by signal), and the global
 * limits (vMotion, imports) are held by the semaphores, not by the fan-out.
 */
export async function migrationWave(input: MigrationWaveInput): Promise<MigrationWaveResult> {
  const waveWorkflowId = workflowInfo().workflowId;
  upsertSearchAttributes([
    { key: FerryKind, value: 'wave' },
    { key: WaveId, value: input.waveId },
  ]);
  const carried = input.carried;
  let settings: MigrationSettings | undefined = carried?.settings;
  const status: WaveStatus = carried?.status ?? {
    waveId: input.waveId,
    stage: 'discover',
    vms: [],
    refused: [],
    approvals: [],
    ignored: [],
    counts: { pending: 0, running: 0, finished: 0 },
  };
  const actions: MigrationAction[] = carried?.actions ?? [];
  const snapshots: Record<string, VmSnapshot> = carried?.snapshots ?? {};
  const imports = carried?.imports ?? [];
  const setStage = (stage: WaveStatus['stage']) => {
    status.stage = stage;
    upsertSearchAttributes([{ key: FerryStage, value: stage }]);
  };
  const byMoid = () => new Map(status.vms.map((vm) => [vm.moid, vm]));
  // Signals to the VMs' workflows still on their way: a run must not end (or continue as new) before
  // they are delivered, or a VM would never hear its approval.
  const inFlight = new Set<Promise<unknown>>();
  const send = (signal: Promise<unknown>) => {
    const tracked = signal.catch(() => undefined).finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
  };
  const delivered = async () => {
    while (inFlight.size > 0) await Promise.all([...inFlight]);
  };

  setHandler(waveStatusQuery, () => ({ ...status, counts: waveCounts(status.vms) }));
  setHandler(vmStageSignal, ({ moid, stage, seq }) => {
    const vm = byMoid().get(moid);
    if (!vm || vm.state === 'finished') return;
    // Stage changes made in one workflow task are separate signals, and those may arrive in any order.
    if (seq !== undefined && vm.stageSeq !== undefined && seq <= vm.stageSeq) return;
    vm.stage = stage;
    if (seq !== undefined) vm.stageSeq = seq;
  });
  setHandler(vmFinishedSignal, (finished) => {
    const vm = byMoid().get(finished.moid);
    if (!vm || vm.state === 'finished') return;
    vm.state = 'finished';
    vm.outcome = finished.outcome;
    vm.error = finished.error;
    vm.finishedAt = workflowNow();
    vm.timings = finished.timings;
    vm.stage = finished.timings.at(-1)?.stage ?? vm.stage;
    actions.push(...finished.actions);
    imports.push(...finished.imports);
    const throughput = measuredThroughput(imports);
    if (throughput.measured) {
      status.importThroughputBytesPerSecond = throughput.bytesPerSecond;
      for (const other of status.vms.filter((v) => v.state === 'running' && v.stage === 'awaiting-approval')) {
        send(getExternalWorkflowHandle(other.workflowId).signal(importThroughputSignal, throughput));
      }
    }
  });
  const approve = (decision: CutoverApproval, via: 'update' | 'signal') => {
    const approval: WaveApproval = { by: decision.by, reason: decision.reason, at: workflowNow(), via, vms: decision.vms ?? 'all' };
    status.approvals.push(approval);
    for (const vm of status.vms.filter((v) => v.state === 'running' && covered(approval, v.name))) send(forwardApproval(vm, approval));
  };
  const approvalProblem = (decision: CutoverApproval) => {
    if (!settings) return 'the wave is still loading its settings; try again in a moment';
    const problem = decisionProblem(decision, settings.approvers);
    if (problem) return problem;
    const unknown = (decision.vms ?? []).filter((name) => !status.vms.some((vm) => vm.name === name));
    if (status.stage !== 'discover' && unknown.length > 0) return `not in this wave: ${unknown.join(', ')}`;
    return undefined;
  };
  setHandler(approveWaveUpdate, (decision) => (approve(decision, 'update'), { ...status, counts: waveCounts(status.vms) }), {
    validator: (decision) => {
      const problem = approvalProblem(decision);
      if (problem) throw new Error(problem);
    },
  });
  // A signal cannot be refused: one that comes before the settings (approvers) are known waits for
  // them; one that is not valid is recorded, not acted on.
  const early: Array<CutoverApproval> = [];
  const takeApprovalSignal = (decision: CutoverApproval) => {
    const problem = approvalProblem(decision);
    if (problem) status.ignored.push({ message: `approve by ${String(decision?.by)}`, reason: problem });
    else approve(decision, 'signal');
  };
  setHandler(approveWaveSignal, (decision) => {
    if (settings) takeApprovalSignal(decision);
    else early.push(decision);
  });

  const loaded = settings ?? (await reads.loadMigrationSettings());
  settings = loaded;
  for (const decision of early.splice(0)) takeApprovalSignal(decision);
  let sdn: SdnSyncResult | undefined = carried?.sdn;
  if (!carried) {
    if (input.autoApprove) {
      const problem = decisionProblem(input.autoApprove, loaded.approvers);
      if (problem) throw new Error(`autoApprove refused: ${problem}`);
    }
    // --- one discovery and one assessment for the whole wave ---
    const discovered = await estateReads(loaded.heartbeatTimeoutMs).discoverWave(input.selection);
    const assessment = assessInventory(discovered, loaded.rules);
    for (const vm of discovered.vms) {
      const keys = new Set(vm.nics.flatMap((n) => (n.backing.kind === 'dvportgroup' ? [n.backing.portgroupKey] : [])));
      snapshots[vm.moid] = {
        vcenter: discovered.vcenter,
        vm,
        portgroups: discovered.portgroups.filter((pg) => keys.has(pg.key)),
        datastores: discovered.datastoresByVm[vm.moid] ?? [],
      };
    }
    for (const vm of assessment.vms) {
      if (vm.refusals.length > 0) {
        status.refused.push({ name: vm.name, moid: vm.moid, refusals: vm.refusals });
        actions.push({ kind: 'refuse', vm: vm.pveName, reasons: vm.refusals.map((r) => r.reason) });
      } else {
        status.vms.push({ moid: vm.moid, name: vm.name, workflowId: migrateVmWorkflowId(loaded.vcenter, vm.moid), state: 'pending' });
      }
    }
    if (input.autoApprove) approve(input.autoApprove, 'update');

    // --- networks: one SDN sync for the wave ---
    setStage('networks');
    sdn = await executeChild(sdnSync, {
      workflowId: `${waveWorkflowId}/sdn`,
      args: [{ zone: assessment.vnetPlan.zone, vnets: assessment.vnetPlan.vnets, permits: loaded.limits.sdn, waveId: input.waveId, untranslated: assessment.untranslatedNetworks, heartbeatTimeoutMs: loaded.heartbeatTimeoutMs }],
    });
    actions.push(...sdn.actions);
  }

  // --- the VMs, a bounded number at a time ---
  setStage('migrating');
  const limit = input.maxConcurrent ?? DEFAULT_CONCURRENCY;
  let startedThisRun = 0;
  // A long wave starts afresh (continue-as-new) before its history grows too long; the VMs it started
  // keep running and report to the new run.
  const timeForNewRun = () =>
    workflowInfo().continueAsNewSuggested || (input.continueAsNewAfter !== undefined && startedThisRun >= input.continueAsNewAfter);
  for (;;) {
    const running = status.vms.filter((v) => v.state === 'running').length;
    const next = status.vms.find((v) => v.state === 'pending');
    if (next && running < limit) {
      await startVm(next, loaded, input.waveId, waveWorkflowId, imports, snapshots[next.moid]!);
      delete snapshots[next.moid];
      startedThisRun += 1;
      const approval = approvedBy(status.approvals, next.name);
      if (approval) send(forwardApproval(next, approval));
      continue;
    }
    if (!next && running === 0) break;
    if (timeForNewRun()) {
      await condition(allHandlersFinished);
      await delivered();
      await continueAsNew<typeof migrationWave>({
        ...input,
        autoApprove: undefined,
        carried: {
          settings: loaded,
          status,
          actions,
          imports,
          sdn: sdn!,
          snapshots: Object.fromEntries(status.vms.filter((v) => v.state === 'pending').map((v) => [v.moid, snapshots[v.moid]!])),
        },
      });
    }
    const finishedBefore = status.vms.filter((v) => v.state === 'finished').length;
    const reported = () => status.vms.filter((v) => v.state === 'finished').length > finishedBefore || workflowInfo().continueAsNewSuggested;
    // A VM workflow that was terminated or timed out never reports; without this check the wave would
    // wait forever. (Runs started before the check existed replay without its timer.)
    if (!patched(CHILD_CHECK_PATCH)) await condition(reported);
    else if (!(await condition(reported, input.childCheckIntervalMs ?? DEFAULT_CHILD_CHECK_INTERVAL_MS))) await finishSilentChildren(status.vms);
  }
  setStage('done');
  await condition(allHandlersFinished);
  await delivered();
  return { status: { ...status, counts: waveCounts(status.vms) }, actions, sdn: sdn! };
}

async function finishSilentChildren(vms: WaveVm[]): Promise<void> {
  const running = vms.filter((v) => v.state === 'running');
  if (running.length === 0) return;
  let closed: Awaited<ReturnType<Activities['closedWorkflows']>>;
  try {
    closed = await watch.closedWorkflows({ workflowIds: running.map((v) => v.workflowId) });
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

function covered(approval: WaveApproval, name: string): boolean {
  return approval.vms === 'all' || approval.vms.includes(name);
}

function forwardApproval(vm: WaveVm, approval: WaveApproval): Promise<void> {
  return getExternalWorkflowHandle(vm.workflowId)
    .signal(approveCutoverSignal, { by: approval.by, reason: `${approval.reason} (wave approval)` })
    .catch(() => undefined);
}

async function startVm(
  vm: WaveVm,
  settings: MigrationSettings,
  waveId: string,
  waveWorkflowId: string,
  imports: Array<{ bytes: number; seconds: number }>,
  snapshot: VmSnapshot,
): Promise<void> {
  vm.state = 'running';
  vm.startedAt = workflowNow();
  const start = (workflowIdReusePolicy: WorkflowIdReusePolicy) =>
    startChild(migrateVm, {
      workflowId: vm.workflowId,
      args: [{ moid: vm.moid, settings, waveId, waveWorkflowId, throughput: measuredThroughput(imports), snapshot }],
      // The VM's workflow outlives a continue-as-new of the wave and reports back by signal.
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy,
    });
  try {
    // A VM that has a migration workflow already is looked at first, so it is never migrated twice.
    await start(WorkflowIdReusePolicy.REJECT_DUPLICATE);
    return;
  } catch (err) {
    if (!alreadyStarted(err)) throw err;
  }
  const decision = rerunDecision(await watch.previousRun({ workflowId: vm.workflowId }), vm.workflowId);
  if (decision.rerun) {
    try {
      // The earlier run ended with VMware still the VM's home (refused, rejected, rolled back, …).
      await start(WorkflowIdReusePolicy.ALLOW_DUPLICATE);
      return;
    } catch (err) {
      if (!alreadyStarted(err)) throw err;
    }
  }
  vm.state = 'finished';
  vm.finishedAt = workflowNow();
  vm.error = decision.rerun ? `not started: workflow ${vm.workflowId} was started by someone else meanwhile; see it there` : decision.reason;
}

function alreadyStarted(err: unknown): boolean {
  return err instanceof Error && err.name === 'WorkflowExecutionAlreadyStartedError';
}
