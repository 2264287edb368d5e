import { mapBounded } from '../../activities/drift/bounded';

describe('mapBounded: every item, at most `limit` at once, results in order', () => {
  it('never runs more than the limit at once, and keeps the order of the items', async () => {
    let running = 0;
    let peak = 0;
    const results = await mapBounded([50, 10, 30, 5, 20, 1, 15, 25, 35, 45], 3, async (ms, i) => {
      peak = Math.max(peak, ++running);
      await new Promise((r) => setTimeout(r, ms));
      running--;
      return `${i}:${ms}`;
    });
    expect(peak).toBe(3);
    expect(results).toEqual(['0:50', '1:10', '2:30', '3:5', '4:20', '5:1', '6:15', '7:25', '8:35', '9:45']);
  });

  it('an empty list is an empty result; a limit below 1 is refused', async () => {
    await expect(mapBounded([], 8, async () => 1)).resolves.toEqual([]);
    await expect(mapBounded([1], 0, async () => 1)).rejects.toThrow('limit must be a whole number ≥ 1, got 0');
  });
});
