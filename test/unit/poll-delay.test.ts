import { nextPollDelay, pollDelayToward, TaskDurations } from '../../src/poll-delay';

describe('nextPollDelay', () => {
  it('asks quickly at first, then a twentieth of the elapsed time apart, never more than the maximum', () => {
    expect(nextPollDelay(0, 1000)).toBe(40);
    expect(nextPollDelay(500, 1000)).toBe(40);
    expect(nextPollDelay(2_000, 1000)).toBe(100);
    expect(nextPollDelay(60_000, 1000)).toBe(1000);
    expect(nextPollDelay(60_000, 500)).toBe(500);
    expect(nextPollDelay(10, 1000, 5)).toBe(5);
  });

  it('notices a task at most about a twentieth later than it ends', () => {
    for (const taskMs of [300, 1_000, 3_000, 7_500, 45_000]) {
      let elapsed = 0;
      while (elapsed < taskMs) elapsed += nextPollDelay(elapsed, 1000);
      expect(elapsed - taskMs).toBeLessThanOrEqual(Math.max(40, taskMs * 0.05) + 1);
    }
  });

  it('asks a 3 s task no more than ~50 times and an hour-long one about once a second', () => {
    const polls = (taskMs: number) => {
      let elapsed = 0;
      let n = 0;
      for (; elapsed < taskMs; n++) elapsed += nextPollDelay(elapsed, 1000);
      return n;
    };
    expect(polls(3_000)).toBeLessThanOrEqual(50);
    expect(polls(3_600_000)).toBeLessThanOrEqual(3_600 + 100);
  });
});

describe('pollDelayToward', () => {
  /** When a task of `taskMs` is noticed, and after how many polls, with `expectedMs` expected. */
  const notice = (taskMs: number, expectedMs: number | undefined) => {
    let elapsed = 0;
    let polls = 0;
    for (; elapsed < taskMs; polls++) elapsed += pollDelayToward(elapsed, 1000, expectedMs);
    return { lateMs: elapsed - taskMs, polls };
  };

  it('is nextPollDelay without an expectation', () => {
    for (const elapsed of [0, 500, 2_000, 60_000])
      expect(pollDelayToward(elapsed, 1000, undefined)).toBe(nextPollDelay(elapsed, 1000));
  });

  it('never sleeps past the expected end, then asks every 20 ms for a tenth of it (at most a second)', () => {
    expect(pollDelayToward(2_990, 1000, 3_000)).toBe(10);
    expect(pollDelayToward(2_000, 1000, 3_000)).toBe(100);
    expect(pollDelayToward(3_000, 1000, 3_000)).toBe(20);
    expect(pollDelayToward(3_299, 1000, 3_000)).toBe(20);
    expect(pollDelayToward(3_300, 1000, 3_000)).toBe(nextPollDelay(3_300, 1000));
    expect(pollDelayToward(60_999, 1000, 60_000)).toBe(20);
    expect(pollDelayToward(61_000, 1000, 60_000)).toBe(nextPollDelay(61_000, 1000));
  });

  it('notices a 3 s task that ends when expected (or a little later) within 20 ms, for a few more polls', () => {
    for (const taskMs of [3_000, 3_010, 3_150]) {
      const aimed = notice(taskMs, 3_000);
      expect(aimed.lateMs).toBeLessThanOrEqual(20);
      expect(aimed.polls).toBeLessThanOrEqual(notice(taskMs, undefined).polls + 10);
    }
    // A task much longer than expected costs a few dozen polls more, and is noticed as late as without.
    const longer = notice(9_000, 3_000);
    expect(longer.lateMs).toBeLessThanOrEqual(9_000 * 0.05 + 1);
    expect(longer.polls).toBeLessThanOrEqual(notice(9_000, undefined).polls + 16);
  });
});

describe('TaskDurations', () => {
  it('expects the median of the last nine durations of a kind, and nothing for a kind never seen', () => {
    const durations = new TaskDurations();
    expect(durations.expected('pve:qmmigrate')).toBeUndefined();
    for (const ms of [3_000, 3_100, 50_000]) durations.record('pve:qmmigrate', ms);
    expect(durations.expected('pve:qmmigrate')).toBe(3_100);
    for (let i = 0; i < 9; i++) durations.record('pve:qmmigrate', 1_000);
    expect(durations.expected('pve:qmmigrate')).toBe(1_000);
    expect(durations.expected('vsphere:RelocateVM_Task')).toBeUndefined();
  });
});
