import { activityInfo, heartbeat } from '@temporalio/activity';

/**
 * Truthful outcomes across retries. A write whose answer is lost (a worker killed mid-call, a task poll
 * that never came back) leaves the retry to find the work done; without a record it would report
 * "unchanged" or "already" for what this very run did. So an attempt heartbeats the names of the writes
 * it starts *before* sending them, and every progress heartbeat carries that list on: the next attempt
 * reads it from the activity's heartbeat details (Temporal keeps them per activity, per run), and a write
 * it finds done that an earlier attempt started counts as done by this run. A state nobody in this run
 * touched still reports "unchanged"/"already".
 */
export interface WriteIntent {
  /** An earlier attempt of this activity (same workflow run) started this write. */
  startedEarlier(write: string): boolean;
  /** Records that this attempt starts the write; call right before sending it. */
  start(write: string): void;
  /** A progress heartbeat that keeps the record (use as `onProgress`). */
  beat(progress: unknown): void;
}

const STARTED = 'startedWrites';

/** The write names an earlier attempt recorded, from its heartbeat details. */
export function earlierWrites(details: unknown): string[] {
  if (details === null || typeof details !== 'object') return [];
  const list = (details as Record<string, unknown>)[STARTED];
  return Array.isArray(list) ? list.filter((w): w is string => typeof w === 'string') : [];
}

/** The details to heartbeat: the progress (merged when it is an object) with the started writes. */
export function intentDetails(started: readonly string[], progress?: unknown): Record<string, unknown> {
  const base =
    progress !== null && typeof progress === 'object' && !Array.isArray(progress)
      ? (progress as Record<string, unknown>)
      : progress === undefined
        ? {}
        : { progress };
  return { ...base, [STARTED]: [...started] };
}

export function writeIntent(): WriteIntent {
  const earlier = new Set(earlierWrites(activityInfo().heartbeatDetails));
  const started = new Set(earlier);
  return {
    startedEarlier: (write) => earlier.has(write),
    start(write) {
      started.add(write);
      heartbeat(intentDetails([...started]));
    },
    beat: (progress) => heartbeat(intentDetails([...started], progress)),
  };
}
