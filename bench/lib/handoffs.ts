import type { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** One use of a limited resource: when its permit was asked for, and when the work started and ended. */
export interface Use {
  requestedMs?: number;
  startMs: number;
  endMs: number;
}

function eventMs(e: HistoryEvent): number {
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
    if (start && typeOf.get(String(start.scheduledEventId)) === activityType) started.set(String(start.scheduledEventId), eventMs(e));
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
