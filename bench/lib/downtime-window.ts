import type { temporal } from '@temporalio/proto';
import type { MigrationStatus } from '../../src/domain/migration';
import type { WorkflowTimeline } from '../../src/report/history';
import { permitBars } from '../../src/report/vm-timeline';
import { eventMs } from './handoffs';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** A span of time, epoch ms. */
export interface Span {
  from: number;
  to: number;
}

/**
 * A migrated VM's downtime as its workflow measured it: a checked guest's own figure (shutdown started →
 * last check of verify-guest passed); an unchecked one (`verify.skip`, e.g. the lab's blank scale VMs)
 * from the shutdown's start until its `start` stage ended (Proxmox reported it running).
 */
export function vmDowntime(status: MigrationStatus): (Span & { until: 'verified' | 'booted' }) | undefined {
  const shutdown = status.timings.find((t) => t.stage === 'shutdown');
  if (!shutdown) return undefined;
  const measured = status.verification?.downtimeSeconds;
  if (measured !== undefined)
    return { from: shutdown.startedAt, to: shutdown.startedAt + measured * 1000, until: 'verified' };
  const started = status.timings.findLast((t) => t.stage === 'start');
  return started?.endedAt === undefined
    ? undefined
    : { from: shutdown.startedAt, to: started.endedAt, until: 'booted' };
}

/** How much of [from, to] lies inside `span`. */
export function overlapMs(from: number, to: number, span: Span): number {
  return Math.max(0, Math.min(to, span.to) - Math.max(from, span.from));
}

/** Where a VM's downtime went, each figure the part of it inside the downtime (ms). */
export interface DowntimeBreakdown {
  /** The workflow's stages (shutdown, import = overlays made and attached, verify, start…). */
  stages: Array<[string, number]>;
  /** Downtime not inside any stage: the steps between them (boot order, recheck) and their hand-overs. */
  betweenStages: number;
  /** Activity scheduled → started, per activity type and the queue it was scheduled on: a wait for a slot. */
  activityQueued: Array<{ activity: string; queue: string; ms: number }>;
  /** Activity started → closed, per type: the work itself. */
  activityRunning: Array<[string, number]>;
  /** Permit asked for → granted, per limit (e.g. `vm-start`). */
  permitWaits: Array<[string, number]>;
  /** Workflow task scheduled → started (a workflow slot, the poll) and started → completed. */
  workflowTaskQueued: number;
  workflowTaskRunning: number;
}

/** The breakdown of one VM's downtime from its status (stages), its history (activities, tasks) and its timeline (permits). */
export function downtimeBreakdown(
  status: MigrationStatus,
  events: readonly HistoryEvent[],
  timeline: WorkflowTimeline,
  span: Span,
): DowntimeBreakdown {
  const stages = status.timings
    .map((t): [string, number] => [t.stage, overlapMs(t.startedAt, t.endedAt ?? span.to, span)])
    .filter(([, ms]) => ms > 0);
  const inStages = stages.reduce((s, [, ms]) => s + ms, 0);
  const permits = new Map<string, number>();
  for (const bar of permitBars(timeline, span.to)) {
    const limit = bar.label.replace(/^permit /, '');
    permits.set(limit, (permits.get(limit) ?? 0) + overlapMs(bar.start, bar.end, span));
  }
  return {
    stages,
    betweenStages: Math.max(0, span.to - span.from - inStages),
    ...activityAndTaskTimes(events, span),
    permitWaits: [...permits].filter(([, ms]) => ms > 0),
  };
}

/** Activity queue and run times, and workflow task times, inside `span`. */
function activityAndTaskTimes(
  events: readonly HistoryEvent[],
  span: Span,
): Pick<DowntimeBreakdown, 'activityQueued' | 'activityRunning' | 'workflowTaskQueued' | 'workflowTaskRunning'> {
  const at = new Map<string, number>();
  const scheduled = new Map<string, { activity: string; queue: string }>();
  const queued = new Map<string, { activity: string; queue: string; ms: number }>();
  const running = new Map<string, number>();
  let workflowTaskQueued = 0;
  let workflowTaskRunning = 0;
  const since = (ref: unknown, t: number) => overlapMs(at.get(String(ref)) ?? t, t, span);
  for (const e of events) {
    const t = eventMs(e);
    at.set(String(e.eventId), t);
    const s = e.activityTaskScheduledEventAttributes;
    if (s) scheduled.set(String(e.eventId), { activity: s.activityType?.name ?? '?', queue: s.taskQueue?.name ?? '?' });
    const started = e.activityTaskStartedEventAttributes;
    const which = started ? scheduled.get(String(started.scheduledEventId)) : undefined;
    if (started && which) {
      const key = `${which.activity}@${which.queue}`;
      const entry = queued.get(key) ?? { ...which, ms: 0 };
      entry.ms += since(started.scheduledEventId, t);
      queued.set(key, entry);
    }
    const closed =
      e.activityTaskCompletedEventAttributes ??
      e.activityTaskFailedEventAttributes ??
      e.activityTaskTimedOutEventAttributes;
    const ran = closed ? scheduled.get(String(closed.scheduledEventId)) : undefined;
    if (closed && ran) running.set(ran.activity, (running.get(ran.activity) ?? 0) + since(closed.startedEventId, t));
    if (e.workflowTaskStartedEventAttributes)
      workflowTaskQueued += since(e.workflowTaskStartedEventAttributes.scheduledEventId, t);
    const done = e.workflowTaskCompletedEventAttributes ?? e.workflowTaskFailedEventAttributes;
    if (done) workflowTaskRunning += since(done.startedEventId, t);
  }
  return {
    activityQueued: [...queued.values()].filter((q) => q.ms > 0).sort((a, b) => b.ms - a.ms),
    activityRunning: [...running].filter(([, ms]) => ms > 0).sort((a, b) => b[1] - a[1]),
    workflowTaskQueued,
    workflowTaskRunning,
  };
}

/** Lines per VM for the bench's output; queues named by their role next to `mainQueue` (`datastore`, `import`…). */
export function formatBreakdown(b: DowntimeBreakdown, mainQueue: string): string[] {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const list = (entries: Array<[string, number]>) => entries.map(([k, ms]) => `${k} ${s(ms)}`).join(', ') || 'none';
  const queued = b.activityQueued.reduce((sum, q) => sum + q.ms, 0);
  const topQueued = b.activityQueued
    .slice(0, 3)
    .map((q) => `${q.activity} on ${roleOf(q.queue, mainQueue)} ${Math.round(q.ms)} ms`)
    .join(', ');
  return [
    `stages: ${list(b.stages)}; between stages ${s(b.betweenStages)}`,
    `waits: permits ${list(b.permitWaits)}; activities queued ${s(queued)}${topQueued ? ` (most: ${topQueued})` : ''}; workflow tasks queued ${s(b.workflowTaskQueued)}, running ${s(b.workflowTaskRunning)}`,
    `activities running: ${list(b.activityRunning)}`,
  ];
}

function roleOf(queue: string, mainQueue: string): string {
  if (queue === mainQueue) return 'main';
  return queue.startsWith(`${mainQueue}-`) ? queue.slice(mainQueue.length + 1) : queue;
}
