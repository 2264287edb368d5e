import { nextPollDelay } from '../../src/poll-delay';

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
