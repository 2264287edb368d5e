import {
  nextYield,
  YIELD_START,
  type YieldDecision,
  type YieldEvent,
  type YieldPolicy,
  type YieldState,
} from '../../../../src/domain/conversion';

const policy: YieldPolicy = { lingerMs: 2_000, atMostMs: 30_000 };

/** Feeds events in order; each is [at ms, event]. Returns every decision. */
function run(events: Array<[number, YieldEvent]>, start: YieldState = YIELD_START): YieldDecision[] {
  let state = start;
  return events.map(([at, event]) => {
    const d = nextYield(policy, state, event, at);
    state = d.state;
    return d;
  });
}

const actions = (ds: YieldDecision[]) => ds.map((d) => d.action ?? '-');

describe('conversions yield to cutovers: the rules', () => {
  it('pauses at the first downtime activity and not again for a second one', () => {
    const ds = run([
      [0, 'hold'],
      [100, 'hold'],
    ]);
    expect(actions(ds)).toEqual(['pause', '-']);
    expect(ds[1]!.state).toMatchObject({ holders: 2, pausedSince: 0 });
    // The cap is the only thing that can end it while activities hold.
    expect(ds[1]!.recheckAt).toBe(30_000);
  });

  it('stays paused through the linger after the last activity, then resumes on the tick', () => {
    const ds = run([
      [0, 'hold'],
      [1_000, 'release'],
      [2_500, 'tick'],
      [3_000, 'tick'],
    ]);
    expect(actions(ds)).toEqual(['pause', '-', '-', 'resume']);
    expect(ds[1]!.recheckAt).toBe(3_000);
    expect(ds[3]!.state).toMatchObject({ holders: 0, lastReleaseAt: 1_000 });
    expect(ds[3]!.state.pausedSince).toBeUndefined();
    expect(ds[3]!.recheckAt).toBeUndefined();
  });

  it('a step that starts within the linger (the next step of the same cutover) keeps the one pause', () => {
    const ds = run([
      [0, 'hold'],
      [500, 'release'],
      [1_800, 'hold'],
      [2_600, 'tick'], // the first linger would have ended here
      [3_000, 'release'],
      [5_000, 'tick'],
    ]);
    expect(actions(ds)).toEqual(['pause', '-', '-', '-', '-', 'resume']);
    expect(ds[4]!.state.pausedSince).toBe(0);
  });

  it('an activity that starts after the linger pauses again', () => {
    const ds = run([
      [0, 'hold'],
      [100, 'release'],
      [2_100, 'tick'],
      [10_000, 'hold'],
    ]);
    expect(actions(ds)).toEqual(['pause', '-', 'resume', 'pause']);
    expect(ds[3]!.state).toMatchObject({ pausedSince: 10_000 });
  });

  it('a pause lasts at most atMost; then conversions run as long before the next', () => {
    const ds = run([
      [0, 'hold'],
      [30_000, 'tick'],
      [45_000, 'hold'], // more downtime while they catch up: no pause yet
      [60_000, 'tick'],
      [70_000, 'release'],
      [70_000, 'release'],
      [72_000, 'tick'],
    ]);
    expect(actions(ds)).toEqual(['pause', 'resume', '-', 'pause', '-', '-', 'resume']);
    expect(ds[1]!.state).toMatchObject({ runUntil: 60_000 });
    expect(ds[1]!.state.pausedSince).toBeUndefined();
    expect(ds[1]!.recheckAt).toBe(60_000);
    expect(ds[2]!.recheckAt).toBe(60_000);
    expect(ds[3]!.state).toMatchObject({ pausedSince: 60_000 });
    expect(ds[6]!.state).toMatchObject({ holders: 0 });
    expect(ds[6]!.state.pausedSince).toBeUndefined();
  });

  it('after a capped pause, downtime that ended during the catch-up does not pause them', () => {
    const ds = run([
      [0, 'hold'],
      [30_000, 'tick'],
      [40_000, 'release'],
      [60_000, 'tick'],
    ]);
    expect(actions(ds)).toEqual(['pause', 'resume', '-', '-']);
    expect(ds[3]!.state.pausedSince).toBeUndefined();
  });

  it('a tick with nothing to do changes nothing, and a release without a hold is ignored', () => {
    const ds = run([
      [0, 'tick'],
      [5, 'release'],
    ]);
    expect(actions(ds)).toEqual(['-', '-']);
    expect(ds[1]!.state).toEqual({ ...YIELD_START });
  });

  it('with many holders over time, paused time never exceeds half of any window past the first pause', () => {
    // Downtime activities back to back for ten minutes: the conversions still get their half.
    const events: Array<[number, YieldEvent]> = [];
    for (let t = 0; t < 600_000; t += 1_000) events.push([t, 'hold'], [t + 999, 'release'], [t + 999, 'tick']);
    events.push([602_000, 'tick']);
    let state = YIELD_START;
    let pausedAt: number | undefined;
    const pauses: Array<[number, number]> = [];
    for (const [at, event] of events) {
      // A tick every second stands in for the recheck timer (no recheck is further apart than that here).
      const d = nextYield(policy, state, event, at);
      if (d.action === 'pause') pausedAt = at;
      if (d.action === 'resume') {
        pauses.push([pausedAt!, at]);
        pausedAt = undefined;
      }
      state = d.state;
    }
    expect(pauses.length).toBeGreaterThan(5);
    for (const [from, to] of pauses) expect(to - from).toBeLessThanOrEqual(30_000 + 1_000);
    for (let i = 1; i < pauses.length; i++) expect(pauses[i]![0] - pauses[i - 1]![1]).toBeGreaterThanOrEqual(30_000);
    const paused = pauses.reduce((sum, [from, to]) => sum + (to - from), 0);
    expect(paused).toBeLessThanOrEqual(602_000 / 2 + 31_000);
  });
});
