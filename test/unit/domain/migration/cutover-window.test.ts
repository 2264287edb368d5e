import {
  cutoverSchedule,
  cutoverWindowProblem,
  describeSchedule,
  openingAt,
  type CutoverWindow,
} from '../../../../src/domain/migration/cutover-window';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();
const opening = (window: CutoverWindow, when: string) => {
  const o = openingAt(window, at(when));
  return { opensAt: iso(o.opensAt), closesAt: iso(o.closesAt) };
};

const NIGHT: CutoverWindow = { start: '22:00', end: '02:00', timeZone: 'Europe/Berlin' };
const OFFICE: CutoverWindow = { start: '09:00', end: '17:00', timeZone: 'UTC' };

describe('cutover window: the opening in force or the next one', () => {
  it('a same-day window: before, inside, at its end, after', () => {
    expect(opening(OFFICE, '2026-01-15T08:59:59Z')).toEqual({
      opensAt: '2026-01-15T09:00:00.000Z',
      closesAt: '2026-01-15T17:00:00.000Z',
    });
    expect(opening(OFFICE, '2026-01-15T09:00:00Z')).toEqual({
      opensAt: '2026-01-15T09:00:00.000Z',
      closesAt: '2026-01-15T17:00:00.000Z',
    });
    expect(opening(OFFICE, '2026-01-15T16:59:59Z')).toEqual({
      opensAt: '2026-01-15T09:00:00.000Z',
      closesAt: '2026-01-15T17:00:00.000Z',
    });
    // The end is not part of the window.
    expect(opening(OFFICE, '2026-01-15T17:00:00Z')).toEqual({
      opensAt: '2026-01-16T09:00:00.000Z',
      closesAt: '2026-01-16T17:00:00.000Z',
    });
  });

  it('a window across midnight (22:00–02:00 Berlin, winter: UTC+1)', () => {
    const tonight = { opensAt: '2026-01-15T21:00:00.000Z', closesAt: '2026-01-16T01:00:00.000Z' };
    expect(opening(NIGHT, '2026-01-15T12:00:00Z')).toEqual(tonight); // afternoon: tonight's
    expect(opening(NIGHT, '2026-01-15T22:30:00Z')).toEqual(tonight); // 23:30 local: open
    expect(opening(NIGHT, '2026-01-16T00:30:00Z')).toEqual(tonight); // 01:30 local, next day: still yesterday's opening
    expect(opening(NIGHT, '2026-01-16T01:00:00Z')).toEqual({
      opensAt: '2026-01-16T21:00:00.000Z',
      closesAt: '2026-01-17T01:00:00.000Z',
    });
  });

  it('summer time: the same wall clock is an hour earlier in UTC', () => {
    expect(opening(NIGHT, '2026-07-01T12:00:00Z')).toEqual({
      opensAt: '2026-07-01T20:00:00.000Z',
      closesAt: '2026-07-02T00:00:00.000Z',
    });
  });

  it('the spring-forward night (Berlin, 29 March 2026, 02:00 → 03:00): its end at 02:00 moves to 03:00 summer time', () => {
    // Opens 22:00 CET (21:00Z), closes at "02:00", which does not exist: it moves to 03:00 CEST (01:00Z).
    expect(opening(NIGHT, '2026-03-28T12:00:00Z')).toEqual({
      opensAt: '2026-03-28T21:00:00.000Z',
      closesAt: '2026-03-29T01:00:00.000Z',
    });
    // The next night is in summer time.
    expect(opening(NIGHT, '2026-03-29T01:00:00Z')).toEqual({
      opensAt: '2026-03-29T20:00:00.000Z',
      closesAt: '2026-03-30T00:00:00.000Z',
    });
    // A start inside the jump moves forward by the jump.
    const jumped = { start: '02:30', end: '04:00', timeZone: 'Europe/Berlin' };
    expect(opening(jumped, '2026-03-28T23:00:00Z')).toEqual({
      opensAt: '2026-03-29T01:30:00.000Z',
      closesAt: '2026-03-29T02:00:00.000Z',
    });
  });

  it('a window the jump swallows whole (02:00–03:00 on the spring-forward night) is skipped to the next day', () => {
    const swallowed = { start: '02:00', end: '03:00', timeZone: 'Europe/Berlin' };
    expect(opening(swallowed, '2026-03-28T23:00:00Z')).toEqual({
      opensAt: '2026-03-30T00:00:00.000Z',
      closesAt: '2026-03-30T01:00:00.000Z',
    });
  });

  it('the fall-back night (Berlin, 25 October 2026, 03:00 → 02:00): a repeated time is its first occurrence', () => {
    // 22:00 CEST (20:00Z) to the first 02:00 (CEST, 00:00Z): four hours.
    expect(opening(NIGHT, '2026-10-24T12:00:00Z')).toEqual({
      opensAt: '2026-10-24T20:00:00.000Z',
      closesAt: '2026-10-25T00:00:00.000Z',
    });
    // 01:00–03:00 that night is three hours long: the hour 02:00–03:00 happens twice.
    const repeated = { start: '01:00', end: '03:00', timeZone: 'Europe/Berlin' };
    expect(opening(repeated, '2026-10-24T12:00:00Z')).toEqual({
      opensAt: '2026-10-24T23:00:00.000Z',
      closesAt: '2026-10-25T02:00:00.000Z',
    });
    // Inside the second 02:xx (CET): still the same opening.
    expect(opening(repeated, '2026-10-25T01:30:00Z')).toEqual({
      opensAt: '2026-10-24T23:00:00.000Z',
      closesAt: '2026-10-25T02:00:00.000Z',
    });
  });

  it('other zones: New York (DST from 8 March 2026) and Sydney (DST ends 5 April 2026)', () => {
    const ny = { start: '01:00', end: '05:00', timeZone: 'America/New_York' };
    expect(opening(ny, '2026-03-07T12:00:00Z')).toEqual({
      opensAt: '2026-03-08T06:00:00.000Z',
      closesAt: '2026-03-08T09:00:00.000Z',
    });
    const sydney = { start: '23:00', end: '01:00', timeZone: 'Australia/Sydney' };
    // 4 April 23:00 AEDT (12:00Z) to 5 April 01:00 AEDT (14:00Z); the next night 23:00 AEST (13:00Z).
    expect(opening(sydney, '2026-04-04T06:00:00Z')).toEqual({
      opensAt: '2026-04-04T12:00:00.000Z',
      closesAt: '2026-04-04T14:00:00.000Z',
    });
    expect(opening(sydney, '2026-04-04T14:00:00Z')).toEqual({
      opensAt: '2026-04-05T13:00:00.000Z',
      closesAt: '2026-04-05T15:00:00.000Z',
    });
  });
});

describe('cutover schedule: when an approved cutover starts', () => {
  const now = at('2026-01-15T12:00:00Z');

  it('without a window or a time: at once', () => {
    expect(cutoverSchedule(undefined, undefined, now)).toEqual({ startsAt: now });
  });

  it('approve --at: not before that time; a time in the past means now', () => {
    expect(cutoverSchedule(undefined, at('2026-01-15T18:00:00Z'), now)).toEqual({
      startsAt: at('2026-01-15T18:00:00Z'),
      notBefore: at('2026-01-15T18:00:00Z'),
    });
    expect(cutoverSchedule(undefined, at('2026-01-15T06:00:00Z'), now).startsAt).toBe(now);
  });

  it('a window: when it opens, or at once inside it', () => {
    expect(cutoverSchedule(NIGHT, undefined, now)).toEqual({
      startsAt: at('2026-01-15T21:00:00Z'),
      window: { ...NIGHT, opensAt: at('2026-01-15T21:00:00Z'), closesAt: at('2026-01-16T01:00:00Z') },
    });
    expect(cutoverSchedule(NIGHT, undefined, at('2026-01-15T23:00:00Z')).startsAt).toBe(at('2026-01-15T23:00:00Z'));
  });

  it('a window and --at: the later of the two, and an --at past the end waits for the next opening', () => {
    expect(cutoverSchedule(NIGHT, at('2026-01-15T23:30:00Z'), now).startsAt).toBe(at('2026-01-15T23:30:00Z'));
    expect(cutoverSchedule(NIGHT, at('2026-01-16T03:00:00Z'), now).startsAt).toBe(at('2026-01-16T21:00:00Z'));
  });

  it("says when in words, in the window's zone", () => {
    expect(describeSchedule(cutoverSchedule(NIGHT, undefined, now))).toBe(
      'starts 2026-01-15T22:00:00+01:00 (window 22:00–02:00 Europe/Berlin, closes 2026-01-16T02:00:00+01:00)',
    );
    expect(describeSchedule(cutoverSchedule(undefined, at('2026-01-15T18:00:00Z'), now))).toBe(
      'starts 2026-01-15T18:00:00Z',
    );
  });
});

describe('cutover window: bad input names the key', () => {
  it.each([
    [undefined, 'expected { start, end, timeZone }'],
    [{ start: '22', end: '02:00', timeZone: 'UTC' }, 'start: expected a wall-clock time HH:MM'],
    [{ start: '22:00', end: '24:00', timeZone: 'UTC' }, 'end: expected a wall-clock time HH:MM'],
    [{ start: '22:00', end: '22:00', timeZone: 'UTC' }, 'a window needs a length'],
    [{ start: '22:00', end: '02:00', timeZone: 'Mars/Olympus' }, 'timeZone: "Mars/Olympus" is not an IANA time zone'],
    [{ start: '22:00', end: '02:00' }, 'timeZone: undefined is not an IANA time zone'],
  ])('%j', (window, message) => {
    expect(cutoverWindowProblem(window as Partial<CutoverWindow>)).toContain(message);
  });

  it('accepts a good one', () => {
    expect(cutoverWindowProblem(NIGHT)).toBeUndefined();
  });
});
