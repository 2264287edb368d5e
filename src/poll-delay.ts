/**
 * How long to wait before asking again whether a remote task (PVE UPID, vCenter Task) has finished:
 * a twentieth of the time it has run so far, between `minMs` and `maxMs`. A task is then noticed at most
 * ~5 % (or `minMs`) after it ends, on average half that: a 3 s task costs ~48 polls and is seen ~75 ms
 * late (a tenth cost ~36 polls and ~150 ms, and each late notice holds a global permit that long).
 */
export function nextPollDelay(elapsedMs: number, maxMs: number, minMs = 40): number {
  return Math.min(maxMs, Math.max(minMs, Math.round(elapsedMs / 20)));
}

/** After the expected end, ask this often for at most EXPECTED_WINDOW (then back to the twentieth). */
const NEAR_END_MS = 20;
const EXPECTED_WINDOW_MS = 1_000;
/** Durations remembered per kind of task: the median of the last few is the expected one. */
const REMEMBERED = 9;

/**
 * Expected task durations, by kind (PVE task type, vCenter method), learnt from the tasks this process
 * watched end. Tasks of one kind in a wave tend to take alike (same disk sizes, same link): a poll then
 * lands on the expected end and the next ones follow closely, instead of up to a twentieth late.
 */
export class TaskDurations {
  private readonly byKind = new Map<string, number[]>();

  /** The median of the kind's recent durations; undefined until one ended. */
  expected(kind: string): number | undefined {
    const seen = this.byKind.get(kind);
    if (!seen?.length) return undefined;
    const sorted = [...seen].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)];
  }

  record(kind: string, durationMs: number): void {
    const seen = this.byKind.get(kind) ?? [];
    seen.push(durationMs);
    if (seen.length > REMEMBERED) seen.shift();
    this.byKind.set(kind, seen);
  }
}

/** One memory per process: every client of this worker learns from every task it watched. */
export const taskDurations = new TaskDurations();

/**
 * nextPollDelay, aimed at the expected end: never past it before it comes, then every NEAR_END_MS for
 * a short window (a tenth of the expected duration, at most a second: a few dozen extra polls at
 * most), then as nextPollDelay. Without an expectation, nextPollDelay itself.
 */
export function pollDelayToward(elapsedMs: number, maxMs: number, expectedMs: number | undefined, minMs = 40): number {
  const base = nextPollDelay(elapsedMs, maxMs, minMs);
  if (expectedMs === undefined) return base;
  if (elapsedMs < expectedMs) return Math.min(base, Math.max(1, Math.ceil(expectedMs - elapsedMs)));
  if (elapsedMs < expectedMs + Math.min(expectedMs / 10, EXPECTED_WINDOW_MS)) return Math.min(base, NEAR_END_MS);
  return base;
}
