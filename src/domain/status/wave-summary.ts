import { z } from 'zod';
import type { WaveStatus, WaveVm } from '../migration/wave';
import { VERIFICATION_STATES } from '../migration/verification';
import { compareCodeUnits } from '../order';
import { meanRate, waveEta, type WaveEta } from './eta';
import { WAVE_ROWS_DEFAULT, WAVE_ROWS_MAX } from './rows';

export { WAVE_ROWS_DEFAULT, WAVE_ROWS_MAX };

/**
 * What a wave answers about itself, at any size: counts per state and stage, the ETA, and one page of
 * VM rows, the ones that need a person first. Stages are plain strings, so a new stage shows up in the
 * counts without a schema change. Full detail of a VM comes from its own workflow.
 */

export const waveSummaryRequestSchema = z
  .object({
    offset: z.number().int().nonnegative().optional(),
    limit: z.number().int().min(1).max(WAVE_ROWS_MAX).optional(),
    /** `attention`: only VMs that wait for a person or failed. */
    filter: z.enum(['all', 'attention']).optional(),
  })
  .strict();
export type WaveSummaryRequest = z.infer<typeof waveSummaryRequestSchema>;

const vmStateSchema = z.enum(['pending', 'running', 'finished']);

export const waveVmRowSchema = z.object({
  name: z.string(),
  moid: z.string(),
  workflowId: z.string(),
  state: vmStateSchema,
  stage: z.string().optional(),
  /** When the VM entered its stage (epoch ms): the age of a wait. */
  stageSince: z.number().optional(),
  outcome: z.string().optional(),
  error: z.string().optional(),
  /** A refused VM: why, in one line. */
  refusal: z.string().optional(),
  bytes: z.number().optional(),
  /** Why a person should look: `failed`, `awaiting-decision`, `awaiting-approval`, … */
  attention: z.string().optional(),
  /** The Proxmox node placement (or `ferry place`) put it on. */
  node: z.string().optional(),
  /** Whether its guest was proven up after the cutover, with boot-to-agent and downtime (seconds). */
  verification: z
    .object({
      state: z.enum(VERIFICATION_STATES),
      bootToAgentSeconds: z.number().optional(),
      downtimeSeconds: z.number().optional(),
    })
    .optional(),
});
export type WaveVmRow = z.infer<typeof waveVmRowSchema>;

const phaseEtaSchema = z.object({
  bytesLeft: z.number(),
  vmsLeft: z.number(),
  parallel: z.number(),
  seconds: z.number().optional(),
});
export const waveEtaSchema = z.object({
  seconds: z.number().optional(),
  relocate: phaseEtaSchema,
  import: phaseEtaSchema,
  waitingForPeople: z.number(),
});

export const waveSummarySchema = z.object({
  kind: z.literal('wave-summary'),
  waveId: z.string(),
  stage: z.string(),
  /** The wave's workflow time of this answer (epoch ms). */
  at: z.number(),
  vms: z.number(),
  counts: z.record(vmStateSchema, z.number()),
  /** VMs per stage (running ones by their current stage, finished ones by their last). */
  stages: z.record(z.string(), z.number()),
  outcomes: z.record(z.string(), z.number()),
  refused: z.number(),
  /** The first VMs refused at discovery, each with why (all of them: the wave's status, `--full`). */
  refusedShown: z.array(z.object({ name: z.string(), moid: z.string(), reason: z.string() })).optional(),
  approvals: z.number(),
  ignored: z.number(),
  throughput: z.object({ importBytesPerSecond: z.number().optional(), relocateBytesPerSecond: z.number().optional() }),
  limits: z.object({ vmotion: z.number(), importPerStorage: z.number() }).optional(),
  eta: waveEtaSchema,
  rows: z.array(waveVmRowSchema),
  page: z.object({ offset: z.number(), limit: z.number(), matching: z.number(), filter: z.enum(['all', 'attention']) }),
  /**
   * Who answered: the wave itself (absent), or visibility, when the wave's query took too long (its
   * worker busy): then VMs not started yet, refusals, approvals and throughput are not known.
   */
  source: z.enum(['wave', 'visibility']).optional(),
});
export type WaveSummary = z.infer<typeof waveSummarySchema>;
// The ETA arithmetic's type and the schema's stay one shape.
const _etaMatches: z.infer<typeof waveEtaSchema> extends WaveEta
  ? WaveEta extends z.infer<typeof waveEtaSchema>
    ? true
    : never
  : never = true;
void _etaMatches;

const FAILED_OUTCOMES = new Set(['rolled-back', 'approval-expired', 'rejected']);

/** Why a person should look at this VM, if they should. */
export function attentionOf(vm: WaveVm): string | undefined {
  if (vm.error) return 'failed';
  if (vm.state === 'finished') return vm.outcome && FAILED_OUTCOMES.has(vm.outcome) ? vm.outcome : undefined;
  if (vm.state === 'running' && vm.stage?.startsWith('awaiting-')) return vm.stage;
  return undefined;
}

/** Order of rows: what needs a person, then copies running, other running work, finished (latest first), pending. */
function rank(vm: WaveVm): number {
  const attention = attentionOf(vm);
  if (attention === 'failed' || attention === 'awaiting-decision') return 0;
  if (attention !== undefined && vm.state === 'running') return 1;
  if (vm.state === 'running') return vm.stage === 'relocate' || vm.stage === 'import' ? 2 : 3;
  if (vm.state === 'finished') return attention ? 0 : 4;
  return 5;
}

function byRank(a: WaveVm, b: WaveVm): number {
  const r = rank(a) - rank(b);
  if (r !== 0) return r;
  if (a.state === 'finished') return (b.finishedAt ?? 0) - (a.finishedAt ?? 0);
  return (a.stageAt ?? a.startedAt ?? 0) - (b.stageAt ?? b.startedAt ?? 0) || compareCodeUnits(a.name, b.name);
}

function rowOf(vm: WaveVm): WaveVmRow {
  const attention = attentionOf(vm);
  return {
    name: vm.name,
    moid: vm.moid,
    workflowId: vm.workflowId,
    state: vm.state,
    ...(vm.stage !== undefined ? { stage: vm.stage } : {}),
    ...(vm.stageAt !== undefined ? { stageSince: vm.stageAt } : {}),
    ...(vm.outcome !== undefined ? { outcome: vm.outcome } : {}),
    ...(vm.error !== undefined ? { error: vm.error.slice(0, 300) } : {}),
    ...(vm.refusal !== undefined ? { refusal: vm.refusal.slice(0, 300) } : {}),
    ...(vm.bytes !== undefined ? { bytes: vm.bytes } : {}),
    ...(attention !== undefined ? { attention } : {}),
    ...(vm.placement ? { node: vm.placement.node } : {}),
    ...(vm.verification ? { verification: vm.verification } : {}),
  };
}

/** Mean vMotion rate of finished VMs: their bytes over the time their relocate stage took, added up by the wave as they finish. */
function relocateRate(status: Pick<WaveStatus, 'relocateTotals'>): number | undefined {
  return meanRate(status.relocateTotals ? [status.relocateTotals] : []);
}

export interface SummaryContext {
  now: number;
  limits?: { vmotion: number; importPerStorage: number };
  importBytesPerSecond?: number;
}

/** Refusals at discovery a summary names with their reasons; the rest are counted. */
export const REFUSALS_SHOWN = 10;

function refusedShown(refused: WaveStatus['refused']): NonNullable<WaveSummary['refusedShown']> {
  return refused.slice(0, REFUSALS_SHOWN).map((r) => ({
    name: r.name,
    moid: r.moid,
    reason: r.refusals
      .map((x) => x.reason)
      .join('; ')
      .slice(0, 300),
  }));
}

/** The wave's summary with one page of rows; linear in the wave's VMs, and its size bounded by the page. */
export function summarizeWave(
  status: WaveStatus,
  context: SummaryContext,
  request: WaveSummaryRequest = {},
): WaveSummary {
  const counts = { pending: 0, running: 0, finished: 0 };
  const stages: Record<string, number> = {};
  const outcomes: Record<string, number> = {};
  for (const vm of status.vms) {
    counts[vm.state] += 1;
    const stage = vm.stage ?? vm.state;
    stages[stage] = (stages[stage] ?? 0) + 1;
    if (vm.state === 'finished') {
      const outcome = vm.outcome ?? (vm.error ? 'failed' : 'unknown');
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    }
  }
  const filter = request.filter ?? 'all';
  const matching = filter === 'attention' ? status.vms.filter((vm) => attentionOf(vm) !== undefined) : [...status.vms];
  const offset = request.offset ?? 0;
  const limit = Math.min(request.limit ?? WAVE_ROWS_DEFAULT, WAVE_ROWS_MAX);
  const rows = matching
    .sort(byRank)
    .slice(offset, offset + limit)
    .map(rowOf);
  const relocateBytesPerSecond = relocateRate(status);
  const importBytesPerSecond = context.importBytesPerSecond ?? status.importThroughputBytesPerSecond;
  const limits = context.limits;
  const eta = waveEta({
    vms: status.vms,
    importBytesPerSecond,
    relocateBytesPerSecond,
    limits: limits ?? { vmotion: 1, importPerStorage: 1 },
  });
  return {
    kind: 'wave-summary',
    waveId: status.waveId,
    stage: status.stage,
    at: context.now,
    vms: status.vms.length,
    counts,
    stages,
    outcomes,
    refused: status.refused.length,
    ...(status.refused.length > 0 ? { refusedShown: refusedShown(status.refused) } : {}),
    approvals: status.approvals.length,
    ignored: status.ignored.length,
    throughput: {
      ...(importBytesPerSecond !== undefined ? { importBytesPerSecond } : {}),
      ...(relocateBytesPerSecond !== undefined ? { relocateBytesPerSecond } : {}),
    },
    ...(limits ? { limits } : {}),
    eta,
    rows,
    page: { offset, limit, matching: matching.length, filter },
  };
}
