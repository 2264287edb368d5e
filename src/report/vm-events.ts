import { approveCutoverSignal, rejectCutoverSignal, retryCutoverSignal, rollbackSignal } from '../domain/messages';
import type { MessageIn, WorkflowTimeline } from './history';
import type { DecisionEntry, FailureEntry } from './model';

/** The part of a migrateVm result (or status) a report reads; provisioning results have none of it. */
interface DecisionFields {
  approval?: DecisionRecordLike;
  rejection?: DecisionRecordLike;
  decisions?: Array<DecisionRecordLike & { decision?: string }>;
  refusals?: Array<{ subject?: string; reason?: string }>;
  ignored?: Array<{ message?: string; reason?: string }>;
  verification?: { state?: string; checks?: Array<{ result?: string; detail?: string; at?: number }> };
  error?: string;
}

interface DecisionRecordLike {
  by?: string;
  reason?: string;
  at?: number;
  via?: string;
  signed?: true;
}

function resultOf(t: WorkflowTimeline): DecisionFields {
  return (t.result ?? {}) as DecisionFields;
}

function fromRecord(decision: string, r: DecisionRecordLike): DecisionEntry {
  return {
    decision,
    by: r.by ?? '?',
    reason: r.reason ?? '',
    ...(r.at !== undefined ? { at: r.at } : {}),
    ...(r.via ? { via: r.via } : {}),
    // A recorded approval or rejection says whether it was signed; a setting's decision has no signer.
    ...(r.via && r.via !== 'setting' ? { signed: r.signed === true } : {}),
  };
}

function fromMessage(decision: string, m: MessageIn): DecisionEntry {
  const args = (m.args[0] ?? {}) as DecisionRecordLike & { signed?: unknown };
  return {
    decision,
    by: args.by ?? '?',
    reason: args.reason ?? '',
    at: m.at,
    via: m.kind,
    signed: args.signed !== undefined,
  };
}

const DECISION_MESSAGES: Record<string, string> = {
  [approveCutoverSignal.name]: 'approve',
  [rejectCutoverSignal.name]: 'reject',
  [retryCutoverSignal.name]: 'retry',
  [rollbackSignal.name]: 'rollback',
};

/**
 * The approval or rejection of a VM's cutover: as the workflow recorded it (validated) when it has
 * ended, else the last one it was sent.
 */
export function approvalOf(t: WorkflowTimeline): DecisionEntry | undefined {
  const r = resultOf(t);
  if (r.rejection) return fromRecord('reject', r.rejection);
  if (r.approval) return fromRecord('approve', r.approval);
  if (t.result !== undefined) return undefined;
  const sent = t.messages.filter((m) => ['approve', 'reject'].includes(DECISION_MESSAGES[m.name] ?? ''));
  const last = sent[sent.length - 1];
  return last ? fromMessage(DECISION_MESSAGES[last.name]!, last) : undefined;
}

/** The messages a VM's workflow heard and did not act on, as its result records them. */
export function ignoredOf(t: WorkflowTimeline): Array<{ message?: string; reason?: string }> {
  return resultOf(t).ignored ?? [];
}

/** Retry and rollback decisions, recorded or (while it runs) sent. */
export function decisionsOf(t: WorkflowTimeline): DecisionEntry[] {
  const r = resultOf(t);
  if (r.decisions) return r.decisions.map((d) => fromRecord(d.decision ?? '?', d));
  return t.messages
    .filter((m) => ['retry', 'rollback'].includes(DECISION_MESSAGES[m.name] ?? ''))
    .map((m) => fromMessage(DECISION_MESSAGES[m.name]!, m));
}

/** A refusal as a line: its subject first, unless the subject is the VM itself or the reason starts with it. */
export function refusalLine(vm: string, r: { subject?: string; reason?: string }): string {
  const reason = r.reason ?? '';
  return r.subject && r.subject !== vm && !reason.startsWith(r.subject) ? `${r.subject}: ${reason}` : reason;
}

export function refusalReasons(t: WorkflowTimeline, vm: string): string[] {
  return (resultOf(t).refusals ?? []).map((r) => refusalLine(vm, r));
}

/** What went wrong on the way, in time order: failed or retried activities, a failed guest check, the workflow's own failure. */
export function failuresOf(t: WorkflowTimeline, vm: string): Array<Omit<FailureEntry, 'decisions'>> {
  const found: Array<Omit<FailureEntry, 'decisions'>> = [];
  for (const a of t.activities) {
    if (a.attempt > 1 && a.lastFailure)
      found.push({
        vm,
        at: a.startedAt ?? a.scheduledAt,
        what: `${a.name} retried (attempt ${a.attempt})`,
        message: a.lastFailure,
      });
    if (a.failure && a.outcome !== 'completed')
      found.push({ vm, at: a.closedAt ?? a.scheduledAt, what: `${a.name} ${a.outcome}`, message: a.failure });
  }
  const r = resultOf(t);
  if (r.verification?.state === 'failed') {
    const failed = (r.verification.checks ?? []).filter((c) => c.result === 'failed');
    const at = failed[0]?.at ?? t.closedAt ?? t.startedAt;
    found.push({
      vm,
      at,
      what: 'guest verification failed',
      message:
        failed
          .map((c) => c.detail ?? '')
          .filter(Boolean)
          .join('; ') || 'a check failed',
    });
  }
  if (t.failure) found.push({ vm, at: t.closedAt ?? t.startedAt, what: `workflow ${t.state}`, message: t.failure });
  else if (r.error && !found.some((f) => f.message.includes(r.error!)))
    found.push({ vm, at: t.closedAt ?? t.startedAt, what: 'error', message: r.error });
  return found.sort((a, b) => a.at - b.at);
}

/** Failures with the decisions that followed each; a decision with no failure before it gets a row of its own. */
export function failuresWithDecisions(t: WorkflowTimeline, vm: string): FailureEntry[] {
  const entries: FailureEntry[] = failuresOf(t, vm).map((f) => ({ ...f, decisions: [] }));
  for (const d of decisionsOf(t)) {
    const before = entries.filter((f) => d.at === undefined || f.at <= d.at);
    const target = before[before.length - 1] ?? entries[entries.length - 1];
    if (target) target.decisions.push(d);
    else
      entries.push({ vm, at: d.at ?? t.startedAt, what: 'decision', message: 'no failure recorded', decisions: [d] });
  }
  return entries;
}
