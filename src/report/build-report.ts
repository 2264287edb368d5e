import { approveWaveSignal } from '../domain/messages';
import type { WorkflowTimeline } from './history';
import type {
  ApprovalEntry,
  IgnoredEntry,
  Mark,
  RefusalEntry,
  ReportKind,
  ReportModel,
  ThroughputPoint,
  Totals,
  VmReport,
} from './model';
import { approvalOf, decisionsOf, failuresWithDecisions, ignoredOf, refusalLine, refusalReasons } from './vm-events';
import { copiesOf, downtimeOf, permitBars, queueBars, stageBars, timerBars } from './vm-timeline';

export interface ReportInput {
  /** The wave (migrationWave) or the provision batch (provisionPlanned). */
  parent: WorkflowTimeline;
  /** Its VMs' workflows (children, or started by it). */
  children: WorkflowTimeline[];
  /** The parent's status when it has no result yet (its status query), if it answered. */
  parentStatus?: unknown;
  /** When the report is made: open bars end here. */
  now: number;
}

const KINDS: Record<string, ReportKind> = { migrationWave: 'migration-wave', provisionPlanned: 'provision-batch' };

/** The outcomes that count a VM done for the throughput curve. */
const SUCCESS = new Set(['migrated', 'provisioned']);

interface ParentStatus {
  waveId?: string;
  refused?: Array<{ name: string; refusals?: Array<{ subject?: string; reason?: string }> }>;
  ignored?: Array<{ message?: string; reason?: string }>;
  approvals?: Array<{
    by?: string;
    reason?: string;
    at?: number;
    via?: string;
    vms?: string[] | 'all';
    signed?: true;
    signature?: unknown;
  }>;
}

function parentStatusOf(input: ReportInput): ParentStatus {
  const result = input.parent.result as { status?: ParentStatus } | undefined;
  return (result?.status ?? result ?? input.parentStatus ?? {}) as ParentStatus;
}

function vmName(t: WorkflowTimeline): string {
  const r = (t.result ?? {}) as { vm?: string; name?: string };
  const name = t.searchAttributes.VmName ?? r.vm ?? r.name;
  return typeof name === 'string' ? name : t.workflowId;
}

export function vmReport(t: WorkflowTimeline, now: number): VmReport {
  const name = vmName(t);
  const r = (t.result ?? {}) as { outcome?: string; vmid?: number; verification?: { state?: string }; error?: string };
  const approval = approvalOf(t);
  const marks: Mark[] = [
    ...(approval?.at !== undefined
      ? [{ kind: 'approval' as const, at: approval.at, label: `${approval.decision}d by ${approval.by}` }]
      : []),
    ...failuresWithDecisions(t, name)
      .filter((f) => f.what !== 'decision')
      .map((f) => ({ kind: 'failure' as const, at: f.at, label: `${f.what}: ${f.message}` })),
    ...decisionsOf(t).flatMap((d) =>
      d.at !== undefined ? [{ kind: 'decision' as const, at: d.at, label: `${d.decision} by ${d.by}` }] : [],
    ),
  ];
  const downtime = downtimeOf(t, now);
  const vmid = t.searchAttributes.VmId ?? r.vmid;
  const bars = [...stageBars(t, now), ...timerBars(t, now), ...permitBars(t, now), ...queueBars(t, now)];
  const converting = bars.filter((b) => b.lane === 'stage' && b.category === 'convert');
  return {
    name,
    workflowId: t.workflowId,
    state: t.state,
    ...(r.outcome
      ? { outcome: r.outcome }
      : t.state !== 'running' && t.state !== 'completed'
        ? { outcome: t.state }
        : {}),
    ...(typeof vmid === 'number' ? { vmid } : {}),
    startedAt: t.startedAt,
    ...(t.closedAt !== undefined ? { endedAt: t.closedAt } : {}),
    bars,
    marks: marks.sort((a, b) => a.at - b.at),
    ...(downtime ? { downtimeFrom: downtime.from, downtimeMs: downtime.ms, downtimeOpen: downtime.open } : {}),
    ...(converting.length ? { conversionMs: converting.reduce((sum, b) => sum + (b.end - b.start), 0) } : {}),
    ...bytesCopied(t),
    ...(r.verification?.state ? { verification: r.verification.state } : {}),
    ...(r.error ? { error: r.error } : t.failure ? { error: t.failure } : {}),
  };
}

function bytesCopied(t: WorkflowTimeline): Pick<VmReport, 'importedBytes' | 'movedLiveBytes'> {
  const copies = copiesOf(t);
  const sum = (how: string) => copies.filter((c) => c.how === how).reduce((total, c) => total + c.bytes, 0);
  return { importedBytes: sum('imported'), movedLiveBytes: sum('moved-live') };
}

function refusals(input: ReportInput, vms: readonly VmReport[]): RefusalEntry[] {
  const entries: RefusalEntry[] = (parentStatusOf(input).refused ?? []).map((r) => ({
    vm: r.name,
    reasons: (r.refusals ?? []).map((x) => refusalLine(r.name, x)),
  }));
  input.children.forEach((child, i) => {
    const reasons = refusalReasons(child, vms[i]!.name);
    if (reasons.length && !entries.some((e) => e.vm === vms[i]!.name)) entries.push({ vm: vms[i]!.name, reasons });
  });
  return entries;
}

/** Messages the wave and its VMs heard and did not act on, from their results (or, running, their last status). */
function ignored(input: ReportInput, vms: readonly VmReport[]): IgnoredEntry[] {
  const entry = (vm: string | undefined) => (i: { message?: string; reason?: string }) => ({
    ...(vm ? { vm } : {}),
    message: i.message ?? '?',
    reason: i.reason ?? '',
  });
  return [
    ...(parentStatusOf(input).ignored ?? []).map(entry(undefined)),
    ...input.children.flatMap((child, i) => ignoredOf(child).map(entry(vms[i]!.name))),
  ];
}

/** A wave's approvals as sent to it, when it has neither a result nor answered its status query. */
function sentApprovals(parent: WorkflowTimeline): NonNullable<ParentStatus['approvals']> {
  return parent.messages
    .filter((m) => m.name === approveWaveSignal.name)
    .map((m) => {
      const { signed, ...args } = m.args[0] as { by?: string; reason?: string; vms?: string[]; signed?: unknown };
      return { ...args, ...(signed !== undefined ? { signed: true as const } : {}), at: m.at, via: m.kind };
    });
}

/**
 * The wave's approvals as given, then each VM's own approval or rejection not already covered by one of
 * the wave's. VMs decided by one message (same decision, approver, reason and time) share a row; two
 * separate approvals with the same words are two rows.
 */
function approvals(input: ReportInput, vms: readonly VmReport[]): ApprovalEntry[] {
  const waveApprovals: ApprovalEntry[] = (parentStatusOf(input).approvals ?? sentApprovals(input.parent)).map((a) => ({
    decision: 'approve',
    by: a.by ?? '?',
    reason: a.reason ?? '',
    ...(a.at !== undefined ? { at: a.at } : {}),
    ...(a.via ? { via: a.via } : {}),
    signed: a.signed === true || a.signature !== undefined,
    vms: a.vms ?? 'all',
  }));
  const entries = [...waveApprovals];
  // The wave passes its approval on to each VM, marked `(wave approval)` unless signed: only the wave's
  // own approvals cover a VM's, never another VM's approval listed below.
  const covered = (by: string, reason: string) =>
    waveApprovals.some((e) => e.by === by && (reason === e.reason || reason === `${e.reason} (wave approval)`));
  input.children.forEach((child, i) => {
    const a = approvalOf(child);
    if (!a || (a.decision === 'approve' && covered(a.by, a.reason))) return;
    const same = entries.find(
      (e) =>
        e.decision === a.decision && e.by === a.by && e.reason === a.reason && e.at === a.at && Array.isArray(e.vms),
    );
    if (same && Array.isArray(same.vms)) same.vms.push(vms[i]!.name);
    else
      entries.push({
        decision: a.decision,
        by: a.by,
        reason: a.reason,
        ...(a.at !== undefined ? { at: a.at } : {}),
        ...(a.via ? { via: a.via } : {}),
        ...(a.signed !== undefined ? { signed: a.signed } : {}),
        vms: [vms[i]!.name],
      });
  });
  return entries;
}

/** Cumulative VMs done and bytes copied (imported, moved live), one point per change, from the wave's start. */
export function throughput(
  start: number,
  children: readonly WorkflowTimeline[],
  vms: readonly VmReport[],
): ThroughputPoint[] {
  const steps: Array<{ at: number; vms: number; imported: number; movedLive: number }> = [];
  children.forEach((child, i) => {
    for (const copy of copiesOf(child)) {
      const imported = copy.how === 'imported' ? copy.bytes : 0;
      steps.push({ at: copy.at, vms: 0, imported, movedLive: copy.bytes - imported });
    }
    const vm = vms[i]!;
    if (vm.endedAt !== undefined && SUCCESS.has(vm.outcome ?? ''))
      steps.push({ at: vm.endedAt, vms: 1, imported: 0, movedLive: 0 });
  });
  steps.sort((a, b) => a.at - b.at);
  const points: ThroughputPoint[] = [{ at: start, vmsDone: 0, bytesImported: 0, bytesMovedLive: 0 }];
  for (const s of steps) {
    const last = points[points.length - 1]!;
    points.push({
      at: s.at,
      vmsDone: last.vmsDone + s.vms,
      bytesImported: last.bytesImported + s.imported,
      bytesMovedLive: last.bytesMovedLive + s.movedLive,
    });
  }
  return points;
}

function median(values: number[]): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : Math.round((sorted[mid - 1]! + sorted[mid]!) / 2);
}

function totals(model: Omit<ReportModel, 'totals'>): Totals {
  const outcomes: Record<string, number> = {};
  for (const vm of model.vms) outcomes[vm.outcome ?? vm.state] = (outcomes[vm.outcome ?? vm.state] ?? 0) + 1;
  const downtimes = model.vms.flatMap((vm) => (vm.downtimeMs !== undefined ? [vm.downtimeMs] : []));
  return {
    vms: model.vms.length,
    outcomes,
    refused: model.refusals.length,
    approvals: model.approvals.length,
    ignored: model.ignored.length,
    failures: model.failures.length,
    downtime: {
      count: downtimes.length,
      totalMs: downtimes.reduce((a, b) => a + b, 0),
      maxMs: Math.max(0, ...downtimes),
      medianMs: median(downtimes),
    },
    bytesImported: model.vms.reduce((sum, vm) => sum + vm.importedBytes, 0),
    bytesMovedLive: model.vms.reduce((sum, vm) => sum + vm.movedLiveBytes, 0),
    durationMs: (model.endedAt ?? model.generatedAt) - model.startedAt,
  };
}

/** The report of a wave or provision batch from its history and its VMs' histories. */
export function buildReport(input: ReportInput): ReportModel {
  const { parent, now } = input;
  const kind = KINDS[parent.type];
  if (!kind)
    throw new Error(
      `${parent.workflowId} is a ${parent.type} workflow: a report covers a migration wave (migrationWave) or a provision batch (provisionPlanned)`,
    );
  const children = [...input.children].sort(
    (a, b) => a.startedAt - b.startedAt || a.workflowId.localeCompare(b.workflowId),
  );
  const vms = children.map((c) => vmReport(c, now));
  const ordered = { ...input, children };
  const base = {
    kind,
    id: parentStatusOf(input).waveId ?? (parent.input as { waveId?: string } | undefined)?.waveId ?? parent.workflowId,
    workflowId: parent.workflowId,
    state: parent.state,
    startedAt: parent.startedAt,
    ...(parent.closedAt !== undefined ? { endedAt: parent.closedAt } : {}),
    generatedAt: now,
    vms,
    throughput: throughput(parent.startedAt, children, vms),
    refusals: refusals(ordered, vms),
    approvals: approvals(ordered, vms),
    ignored: ignored(ordered, vms),
    failures: children.flatMap((c, i) => failuresWithDecisions(c, vms[i]!.name)),
  };
  return { ...base, totals: totals(base) };
}
