import { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** One use of a limited resource: when its permit was asked for, and when the work started and ended. */
export interface Use {
  requestedMs?: number;
  startMs: number;
  endMs: number;
}

export function eventMs(e: HistoryEvent): number {
  const t = e.eventTime!;
  return Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6);
}

/**
 * The uses of activity `activityType` in one workflow history: started → completed, each with the time
 * the permit was asked for (the requestPermit activity scheduled last before it).
 */
export function activityUses(events: readonly HistoryEvent[], activityType: string): Use[] {
  const typeOf = new Map<string, string>();
  const started = new Map<string, number>();
  const uses: Use[] = [];
  let lastRequestMs: number | undefined;
  for (const e of events) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) {
      const name = scheduled.activityType?.name ?? '';
      typeOf.set(String(e.eventId), name);
      if (name === 'requestPermit') lastRequestMs = eventMs(e);
    }
    const start = e.activityTaskStartedEventAttributes;
    if (start && typeOf.get(String(start.scheduledEventId)) === activityType)
      started.set(String(start.scheduledEventId), eventMs(e));
    const done = e.activityTaskCompletedEventAttributes;
    const startMs = done ? started.get(String(done.scheduledEventId)) : undefined;
    if (startMs !== undefined) uses.push({ requestedMs: lastRequestMs, startMs, endMs: eventMs(e) });
  }
  return uses;
}

/**
 * Hand-offs in a pool of `permits`: each use that had to wait starts after the use that freed its slot
 * ends. With uses sorted by start, the i-th start took the slot of the (i − permits)-th end. Counted
 * only where the waiter asked before that slot was freed (it really waited for it).
 */
export function handoffs(uses: readonly Use[], permits: number): number[] {
  const starts = [...uses].sort((a, b) => a.startMs - b.startMs);
  const ends = uses.map((u) => u.endMs).sort((a, b) => a - b);
  const gaps: number[] = [];
  for (let i = permits; i < starts.length; i++) {
    const freedAt = ends[i - permits]!;
    const use = starts[i]!;
    if (use.requestedMs !== undefined && use.requestedMs > freedAt) continue;
    if (use.startMs >= freedAt) gaps.push(use.startMs - freedAt);
  }
  return gaps;
}

/** The requestedMs of each simulator use, taken from the history use of the same VM (by key). */
export function withRequests(simUses: ReadonlyMap<string, Use>, historyUses: ReadonlyMap<string, Use>): Use[] {
  return [...simUses].map(([key, use]) => ({ ...use, requestedMs: historyUses.get(key)?.requestedMs }));
}

/** The events of a history after `afterMs`, as `+ms type`: what a workflow did after a moment. */
export function eventsAfter(events: readonly HistoryEvent[], afterMs: number): string[] {
  return events
    .filter((e) => eventMs(e) >= afterMs)
    .map((e) => {
      const name =
        e.activityTaskScheduledEventAttributes?.activityType?.name ??
        e.timerStartedEventAttributes?.startToFireTimeout?.seconds?.toString();
      const type = (temporal.api.enums.v1.EventType[e.eventType ?? 0] ?? '').replace('EVENT_TYPE_', '');
      return `+${eventMs(e) - afterMs} ms ${type}${name ? ` ${name}` : ''}`;
    });
}

/** Uses keyed `<key>#<n>` (the n-th of that key, by start), so a VM with several disks keeps each. */
export function keyedUses(entries: ReadonlyArray<[string, Use]>): Map<string, Use> {
  const sorted = [...entries].sort((a, b) => a[1].startMs - b[1].startMs);
  const seen = new Map<string, number>();
  const keyed = new Map<string, Use>();
  for (const [key, use] of sorted) {
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    keyed.set(`${key}#${n}`, use);
  }
  return keyed;
}

/** One holder's use of a permit with the moments around it, from its workflow history (epoch ms). */
export interface PermitUse extends Use {
  /** The permitGranted signal (or a transferred grant) reached the workflow. */
  grantedMs?: number;
  scheduledMs: number;
  /** The workflow task after the activity completed sent its release (or transfer). */
  releaseSentMs?: number;
  /** The server delivered it to the semaphore. */
  releaseDeliveredMs?: number;
}

/** Like activityUses, with the grant, scheduling and release moments of each use. */
export function permitUses(events: readonly HistoryEvent[], activityType: string): PermitUse[] {
  const typeOf = new Map<string, string>();
  const times = new Map<string, { scheduledMs: number; startMs?: number; grantedMs?: number; requestedMs?: number }>();
  const uses: PermitUse[] = [];
  let lastRequestMs: number | undefined;
  let lastGrantMs: number | undefined;
  let open: PermitUse | undefined;
  const signalled = new Map<string, PermitUse>();
  for (const e of events) {
    const at = eventMs(e);
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) {
      const name = scheduled.activityType?.name ?? '';
      typeOf.set(String(e.eventId), name);
      if (name === 'requestPermit') lastRequestMs = at;
      if (name === activityType)
        times.set(String(e.eventId), { scheduledMs: at, grantedMs: lastGrantMs, requestedMs: lastRequestMs });
    }
    if (e.workflowExecutionSignaledEventAttributes?.signalName === 'permitGranted') lastGrantMs = at;
    const start = e.activityTaskStartedEventAttributes;
    if (start && typeOf.get(String(start.scheduledEventId)) === activityType)
      times.get(String(start.scheduledEventId))!.startMs = at;
    const done = e.activityTaskCompletedEventAttributes;
    const t = done ? times.get(String(done.scheduledEventId)) : undefined;
    if (t?.startMs !== undefined) {
      open = {
        requestedMs: t.requestedMs,
        grantedMs: t.grantedMs,
        scheduledMs: t.scheduledMs,
        startMs: t.startMs,
        endMs: at,
      };
      uses.push(open);
    }
    // The first signal sent after the work ended is the release (or the transfer to the next holder).
    if (open && e.signalExternalWorkflowExecutionInitiatedEventAttributes) {
      open.releaseSentMs = at;
      signalled.set(String(e.eventId), open);
      open = undefined;
    }
    const delivered = e.externalWorkflowExecutionSignaledEventAttributes;
    const use = delivered ? signalled.get(String(delivered.initiatedEventId)) : undefined;
    if (use) {
      use.releaseDeliveredMs = at;
      signalled.delete(String(delivered!.initiatedEventId));
    }
  }
  return uses;
}

/** The steps of one hand-off, in ms: where the time between one use's end and the next one's start goes. */
export interface HandoffSteps {
  /** Freeing holder: activity completed → its release sent (its workflow task). */
  release: number;
  /** Release sent → the semaphore has it (server). */
  deliver: number;
  /** The semaphore has the release → the next holder has its grant (semaphore task, grant signal). */
  grant: number;
  /** Grant → the next holder's activity scheduled (its workflow task). */
  schedule: number;
  /** Scheduled → started (activity dispatch to a poller). */
  dispatch: number;
}

/**
 * The steps of each hand-off, pairing uses as `handoffs` does (the i-th start took the slot of the
 * (i − permits)-th end); a step whose moments are missing counts as undefined (left out).
 */
export function handoffSteps(uses: readonly PermitUse[], permits: number): Array<Partial<HandoffSteps>> {
  const starts = [...uses].sort((a, b) => a.startMs - b.startMs);
  const ends = [...uses].sort((a, b) => a.endMs - b.endMs);
  const steps: Array<Partial<HandoffSteps>> = [];
  const diff = (a?: number, b?: number) => (a === undefined || b === undefined ? undefined : b - a);
  for (let i = permits; i < starts.length; i++) {
    const freed = ends[i - permits]!;
    const next = starts[i]!;
    if (next.requestedMs !== undefined && next.requestedMs > freed.endMs) continue;
    if (next.startMs < freed.endMs) continue;
    steps.push({
      release: diff(freed.endMs, freed.releaseSentMs),
      deliver: diff(freed.releaseSentMs, freed.releaseDeliveredMs),
      grant: diff(freed.releaseDeliveredMs, next.grantedMs),
      schedule: diff(next.grantedMs, next.scheduledMs),
      dispatch: diff(next.scheduledMs, next.startMs),
    });
  }
  return steps;
}
