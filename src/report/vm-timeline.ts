import { permitGrantedSignal } from '../domain/messages';
import type { WorkflowTimeline } from './history';
import type { Bar } from './model';
import { isFinalStage, stageCategory, stageLabel } from './stages';

/** Where an open bar ends: the workflow's close, or now while it runs. */
function endOf(t: WorkflowTimeline, now: number): number {
  return t.closedAt ?? now;
}

/** One bar per stage the workflow went through, each until the next began (repeated marks are one stage). */
export function stageBars(t: WorkflowTimeline, now: number): Bar[] {
  const marks = t.stages.filter((m, i) => i === 0 || m.stage !== t.stages[i - 1]!.stage);
  const bars: Bar[] = [];
  marks.forEach((mark, i) => {
    if (isFinalStage(mark.stage)) return;
    const next = marks[i + 1];
    bars.push({
      lane: 'stage',
      label: stageLabel(mark.stage),
      category: stageCategory(mark.stage),
      start: mark.at,
      end: next?.at ?? endOf(t, now),
      open: !next && t.closedAt === undefined,
    });
  });
  return bars;
}

interface PermitRequestInput {
  key?: string;
  taskQueue?: string;
  request?: { requestId?: string; label?: string };
}

/** The limit's own name: `vmotion`, `import-local-lvm` (keys are scoped by the main task queue). */
function limitName(input: PermitRequestInput): string {
  const key = input.key ?? '?';
  const scope = input.taskQueue ? `${input.taskQueue}.` : '';
  return scope && key.startsWith(scope) ? key.slice(scope.length) : key;
}

/** Each wait for a permit: from the request until the semaphore granted it. */
export function permitBars(t: WorkflowTimeline, now: number): Bar[] {
  const grants = t.messages.filter((m) => m.name === permitGrantedSignal.name);
  return t.activities
    .filter((a) => a.name === 'requestPermit')
    .map((a) => {
      const input = (a.input ?? {}) as PermitRequestInput;
      const grant = grants.find(
        (g) => (g.args[0] as { requestId?: string } | undefined)?.requestId === input.request?.requestId,
      );
      return {
        lane: 'wait' as const,
        label: `permit ${limitName(input)}`,
        category: 'permit',
        start: a.scheduledAt,
        end: grant?.at ?? endOf(t, now),
        open: !grant && t.closedAt === undefined,
        ...(input.request?.label ? { detail: input.request.label } : {}),
      };
    });
}

/** An activity that waited this long for a worker slot is drawn as a wait: time no work of its own filled. */
const QUEUED_MS = 2000;

/**
 * Activities that sat on their task queue before a worker took them (all worker slots of that queue busy,
 * or no worker): the downtime bars show such a wait as a wait, not as the VM's work. First attempts
 * only: a retried activity's start is its last attempt's, so the gap would include the earlier attempts.
 */
export function queueBars(t: WorkflowTimeline, now: number): Bar[] {
  return t.activities.flatMap((a): Bar[] => {
    if (a.name === 'requestPermit' || a.attempt > 1) return [];
    const end = a.startedAt ?? (a.outcome === 'scheduled' ? endOf(t, now) : undefined);
    if (end === undefined || end - a.scheduledAt < QUEUED_MS) return [];
    const open = a.startedAt === undefined && t.closedAt === undefined;
    return [
      {
        lane: 'wait',
        label: `queued ${a.name}`,
        category: 'queue',
        start: a.scheduledAt,
        end,
        open,
        detail: 'waited on its task queue for a free worker slot',
      },
    ];
  });
}

/** A timer this close to the one before (or closer than its own length) continues its wait: the polls of one condition. */
const POLL_GAP_MS = 2000;

/** Timers that keep a permit's lease alive while its holder works: not waits, so not drawn. */
const LEASE_RENEWAL = /^renew the lease of a permit/;

/** Durable timers (polls for a condition, cutover windows); back-to-back polls are drawn as one wait. */
export function timerBars(t: WorkflowTimeline, now: number): Bar[] {
  const bars: Array<Bar & { count: number; askedMs: number }> = [];
  for (const timer of t.timers.filter((x) => !LEASE_RENEWAL.test(x.summary ?? ''))) {
    const end = timer.firedAt ?? endOf(t, now);
    const open = timer.firedAt === undefined && t.closedAt === undefined;
    const last = bars[bars.length - 1];
    if (last && timer.startedAt - last.end <= Math.max(POLL_GAP_MS, timer.durationMs)) {
      Object.assign(last, { end, open, count: last.count + 1 });
    } else {
      bars.push({
        lane: 'wait',
        label: 'timer',
        category: 'timer',
        start: timer.startedAt,
        end,
        open,
        count: 1,
        askedMs: timer.durationMs,
      });
    }
  }
  return bars.map(({ count, askedMs, ...bar }) => ({
    ...bar,
    label:
      count > 1
        ? `polling (${count} timers)`
        : `timer ${askedMs >= 1000 ? `${Math.round(askedMs / 1000)} s` : `${askedMs} ms`}`,
  }));
}

export interface DiskCopy {
  at: number;
  bytes: number;
  how: 'imported' | 'moved-live';
}

/**
 * The data each finished copy carried, when, from the activities' results: an import (while the VM is
 * down) or, in overlay mode, a disk moved live to its storage after the boot (`moveDisk`). A copy found
 * done already (an earlier run's) carried nothing now.
 */
export function copiesOf(t: WorkflowTimeline): DiskCopy[] {
  return t.activities.flatMap((a): DiskCopy[] => {
    const result = (a.result ?? {}) as { bytes?: unknown; alreadyPresent?: boolean; alreadyMoved?: boolean };
    if (a.outcome !== 'completed' || typeof result.bytes !== 'number') return [];
    if (a.name === 'moveDisk' && result.alreadyMoved !== true)
      return [{ at: a.closedAt!, bytes: result.bytes, how: 'moved-live' }];
    if (/import/i.test(a.name) && result.alreadyPresent !== true)
      return [{ at: a.closedAt!, bytes: result.bytes, how: 'imported' }];
    return [];
  });
}

/** Stages that follow a VM's start only once it runs on Proxmox: its downtime ended with the start. */
const RUNNING_AFTER_START = new Set(['move', 'done']);

/**
 * From the start of the VMware shutdown to the guest proven up on Proxmox (the workflow's own
 * measurement when it made one); for a VM not checked, to the end of its `start` (Proxmox runs it: an
 * overlay cutover's live move comes after, with the VM up); else to the workflow's end; open while it runs.
 */
export function downtimeOf(t: WorkflowTimeline, now: number): { from: number; ms: number; open: boolean } | undefined {
  const shutdown = t.stages.find((m) => m.stage === 'shutdown');
  if (!shutdown) return undefined;
  const measured = (t.result as { verification?: { downtimeSeconds?: number } } | undefined)?.verification
    ?.downtimeSeconds;
  if (typeof measured === 'number') return { from: shutdown.at, ms: measured * 1000, open: false };
  const started = t.stages.findIndex((m) => m.at >= shutdown.at && m.stage === 'start');
  const running = started >= 0 ? t.stages[started + 1] : undefined;
  if (running && RUNNING_AFTER_START.has(running.stage))
    return { from: shutdown.at, ms: Math.max(0, running.at - shutdown.at), open: false };
  const back = t.stages.find((m) => m.at >= shutdown.at && isFinalStage(m.stage));
  const end = back?.at ?? endOf(t, now);
  return { from: shutdown.at, ms: Math.max(0, end - shutdown.at), open: !back && t.closedAt === undefined };
}
