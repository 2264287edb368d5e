import { nextPollDelay } from '../../src/poll-delay';

describe('nextPollDelay', () => {
  it('asks quickly at first, then a tenth of the elapsed time apart, never more than the maximum', () => {
    expect(nextPollDelay(0, 1000)).toBe(25);
    expect(nextPollDelay(100, 1000)).toBe(25);
    expect(nextPollDelay(2_000, 1000)).toBe(200);
    expect(nextPollDelay(60_000, 1000)).toBe(1000);
    expect(nextPollDelay(60_000, 500)).toBe(500);
    expect(nextPollDelay(10, 1000, 5)).toBe(5);
  });

  it('notices a task at most about a tenth later than it ends', () => {
    for (const taskMs of [300, 1_000, 7_500, 45_000]) {
      let elapsed = 0;
      while (elapsed < taskMs) elapsed += nextPollDelay(elapsed, 1000);
      expect(elapsed - taskMs).toBeLessThanOrEqual(Math.max(25, taskMs * 0.1) + 1);
    }
  });
});
