import { DateTime } from 'luxon';
import { UsageError } from './errors';

/** An ISO 8601 time ends with its zone: `Z` or an offset (`+01:00`). */
const ZONED = /(Z|[+-]\d{2}(:?\d{2})?)$/i;

/**
 * `--at`: an ISO 8601 date and time with its zone (`2026-03-28T22:30+01:00`, `…Z`), as epoch ms. A time
 * without a zone is refused rather than read in the CLI's own zone, which the worker does not share.
 */
export function parseAtTime(text: string, flag = '--at'): number {
  const parsed = DateTime.fromISO(text.trim(), { setZone: true });
  if (!parsed.isValid)
    throw new UsageError(
      `${flag}: "${text}" is not an ISO 8601 date and time (e.g. 2026-03-28T22:30+01:00): ${parsed.invalidExplanation ?? parsed.invalidReason}`,
    );
  if (!text.includes('T') || !ZONED.test(text.trim())) {
    throw new UsageError(
      `${flag}: "${text}" needs a date, a time and a zone (e.g. 2026-03-28T22:30+01:00 or 2026-03-28T21:30Z)`,
    );
  }
  return parsed.toMillis();
}

/** `--at HH:MM` (UTC, 24 h): the hour and the minute, or a usage error saying what is wrong. */
export function parseDailyTime(text: string): { hour: number; minute: number } {
  const match = /^(\d{1,2}):(\d{2})$/.exec(text.trim());
  const hour = Number(match?.[1]);
  const minute = Number(match?.[2]);
  if (!match || hour > 23 || minute > 59)
    throw new UsageError(`--at: "${text}" is not a time of day as HH:MM (00:00 to 23:59, UTC), e.g. --at 06:30`);
  return { hour, minute };
}
