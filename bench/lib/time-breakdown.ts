import type { temporal } from '@temporalio/proto';
import { eventMs } from './handoffs';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** Where one workflow's time went, in ms, summed over its history. */
export interface TimeBreakdown {
  /** Activity scheduled → started: waiting for a worker's activity slot (or the poll). */
  activityQueued: number;
  /** Activity started → completed (or failed): the work itself, per activity type. */
  activityRunning: Record<string, number>;
  /** Workflow task scheduled → started: waiting for a workflow task slot (or the poll). */
  workflowQueued: number;
  /** Workflow task started → completed: the workflow code and its replay, if it was not cached. */
  workflowRunning: number;
  /** Timer started → fired. */
  timers: number;
  /** Child workflow initiated → started, and the like: everything else between events. */
  total: number;
}

/** Sums a history's intervals by kind: the per-stage view of where a VM's time went. */
export function timeBreakdown(events: readonly HistoryEvent[]): TimeBreakdown {
  const at = new Map<string, number>();
  const typeOf = new Map<string, string>();
  const out: TimeBreakdown = {
    activityQueued: 0,
    activityRunning: {},
    workflowQueued: 0,
    workflowRunning: 0,
    timers: 0,
    total: 0,
  };
  for (const e of events) {
    const id = String(e.eventId);
    const t = eventMs(e);
    at.set(id, t);
    const since = (ref: unknown) => t - (at.get(String(ref)) ?? t);
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) typeOf.set(id, scheduled.activityType?.name ?? '?');
    if (e.activityTaskStartedEventAttributes)
      out.activityQueued += since(e.activityTaskStartedEventAttributes.scheduledEventId);
    const ended =
      e.activityTaskCompletedEventAttributes ??
      e.activityTaskFailedEventAttributes ??
      e.activityTaskTimedOutEventAttributes;
    if (ended) {
      const type = typeOf.get(String(ended.scheduledEventId)) ?? '?';
      out.activityRunning[type] = (out.activityRunning[type] ?? 0) + since(ended.startedEventId);
    }
    if (e.workflowTaskStartedEventAttributes)
      out.workflowQueued += since(e.workflowTaskStartedEventAttributes.scheduledEventId ?? Number(id) - 1);
    const wfDone =
      e.workflowTaskCompletedEventAttributes ??
      e.workflowTaskFailedEventAttributes ??
      e.workflowTaskTimedOutEventAttributes;
    if (wfDone) out.workflowRunning += since(wfDone.startedEventId);
    if (e.timerFiredEventAttributes) out.timers += since(e.timerFiredEventAttributes.startedEventId);
  }
  if (events.length > 1) out.total = eventMs(events[events.length - 1]!) - eventMs(events[0]!);
  return out;
}

/** The mean of several breakdowns, activity types sorted by time spent. */
export function meanBreakdown(all: readonly TimeBreakdown[]): TimeBreakdown {
  const n = Math.max(1, all.length);
  const running: Record<string, number> = {};
  for (const b of all) for (const [k, v] of Object.entries(b.activityRunning)) running[k] = (running[k] ?? 0) + v / n;
  const sum = (f: (b: TimeBreakdown) => number) => all.reduce((s, b) => s + f(b), 0) / n;
  return {
    activityQueued: sum((b) => b.activityQueued),
    activityRunning: Object.fromEntries(Object.entries(running).sort((a, b) => b[1] - a[1])),
    workflowQueued: sum((b) => b.workflowQueued),
    workflowRunning: sum((b) => b.workflowRunning),
    timers: sum((b) => b.timers),
    total: sum((b) => b.total),
  };
}

/** Lines for the bench's output. */
export function formatBreakdown(b: TimeBreakdown): string[] {
  const r = (x: number) => `${Math.round(x)} ms`;
  const activities = Object.values(b.activityRunning).reduce((s, v) => s + v, 0);
  return [
    `total ${r(b.total)}: workflow tasks queued ${r(b.workflowQueued)}, running ${r(b.workflowRunning)}; activities queued ${r(b.activityQueued)}, running ${r(activities)}; timers ${r(b.timers)}`,
    `activities: ${Object.entries(b.activityRunning)
      .map(([k, v]) => `${k} ${r(v)}`)
      .join(', ')}`,
  ];
}
