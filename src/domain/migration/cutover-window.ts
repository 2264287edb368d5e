import { DateTime, IANAZone } from 'luxon';

/**
 * When cutovers may start: every day from `start` to `end` (wall-clock `HH:MM`) in an IANA time zone.
 * An `end` at or before `start` crosses midnight (22:00–02:00 ends on the next day).
 */
export interface CutoverWindow {
  start: string;
  end: string;
  timeZone: string;
}

/** One opening of a window, as instants (epoch ms). */
export interface WindowOpening {
  opensAt: number;
  closesAt: number;
}

/** When an approved cutover will start: at once, at its `--at` time, or when its window opens. */
export interface CutoverSchedule {
  startsAt: number;
  /** The opening it starts in (absent without a window). */
  window?: CutoverWindow & WindowOpening;
  /** The approval's earliest start (`ferry approve --at`). */
  notBefore?: number;
}

const WALL_CLOCK = /^([01]\d|2[0-3]):([0-5]\d)$/;
/** Days looked ahead for an opening: a window can vanish on one day at most (a DST jump swallows it). */
const DAYS_AHEAD = 4;

/** What is wrong with a window, naming the key, or undefined when it is usable. */
export function cutoverWindowProblem(window: Partial<CutoverWindow> | undefined): string | undefined {
  if (!window || typeof window !== 'object') return 'expected { start, end, timeZone }';
  for (const key of ['start', 'end'] as const) {
    if (typeof window[key] !== 'string' || !WALL_CLOCK.test(window[key]))
      return `${key}: expected a wall-clock time HH:MM (00:00–23:59), got ${JSON.stringify(window[key])}`;
  }
  if (window.start === window.end)
    return `start and end are both ${window.start}: a window needs a length (for "any time", leave cutoverWindow out)`;
  if (typeof window.timeZone !== 'string' || !IANAZone.isValidZone(window.timeZone)) {
    return `timeZone: ${JSON.stringify(window.timeZone)} is not an IANA time zone (e.g. Europe/Berlin, UTC)`;
  }
  return undefined;
}

/** The window's opening in force at `at` or, when it is closed then, the next one. */
export function openingAt(window: CutoverWindow, at: number): WindowOpening {
  const today = DateTime.fromMillis(at, { zone: window.timeZone }).startOf('day');
  const crossesMidnight = window.end <= window.start;
  for (let offset = -1; offset <= DAYS_AHEAD; offset += 1) {
    const day = today.plus({ days: offset });
    const opensAt = wallClock(day, window.start);
    const closesAt = wallClock(crossesMidnight ? day.plus({ days: 1 }) : day, window.end);
    // A DST jump can swallow a short window whole (02:00–03:00 on a spring-forward night): skip it.
    if (closesAt > opensAt && closesAt > at) return { opensAt, closesAt };
  }
  throw new Error(
    `cutover window ${describeWindow(window)} does not open within ${DAYS_AHEAD} days of ${new Date(at).toISOString()}`,
  );
}

/**
 * When an approved cutover may start, asked at `now`: not before `notBefore`, and inside the window's
 * opening at that instant or the next one.
 */
export function cutoverSchedule(
  window: CutoverWindow | undefined,
  notBefore: number | undefined,
  now: number,
): CutoverSchedule {
  const earliest = Math.max(now, notBefore ?? now);
  const asked = notBefore !== undefined ? { notBefore } : {};
  if (!window) return { startsAt: earliest, ...asked };
  const opening = openingAt(window, earliest);
  return { startsAt: Math.max(earliest, opening.opensAt), window: { ...window, ...opening }, ...asked };
}

/** `22:00–02:00 Europe/Berlin` */
export function describeWindow(window: CutoverWindow): string {
  return `${window.start}–${window.end} ${window.timeZone}`;
}

/** A schedule in words for status lines: `starts 2026-03-28T22:00:00+01:00 (window 22:00–02:00 Europe/Berlin)`. */
export function describeSchedule(schedule: CutoverSchedule): string {
  const zone = schedule.window?.timeZone ?? 'UTC';
  const when = DateTime.fromMillis(schedule.startsAt, { zone }).toISO({ suppressMilliseconds: true });
  const window = schedule.window
    ? ` (window ${describeWindow(schedule.window)}, closes ${DateTime.fromMillis(schedule.window.closesAt, { zone }).toISO({ suppressMilliseconds: true })})`
    : '';
  return `starts ${when}${window}`;
}

/**
 * `HH:MM` on a local day. A time that does not exist that day (skipped by a spring-forward jump) moves
 * forward by the jump (02:30 → 03:30); one that exists twice (fall back) is its first occurrence.
 */
function wallClock(day: DateTime, hhmm: string): number {
  const [hour, minute] = hhmm.split(':').map(Number);
  return day.set({ hour, minute, second: 0, millisecond: 0 }).toMillis();
}
