import { ProxmoxTransientError } from '../../../src/proxmox/errors';
import { nullSchema } from '../../../src/proxmox/schemas';
import { startSim, type SimFixture } from '../../helpers/proxmox';

/**
 * A read that fails on the way (5xx, a dropped connection) is sent again by the client, up to three
 * times in all; a write is sent once, its retry left to the caller, which knows whether it took effect.
 */
describe('reads are asked again, writes are not', () => {
  let fx: SimFixture;
  beforeAll(async () => {
    fx = await startSim('9.1');
  });
  afterAll(() => fx.stop());
  afterEach(() => fx.sim.faults.set(undefined));

  const since = (mark: number, path: string) => fx.sim.requests.slice(mark).filter((r) => r.path.endsWith(path));

  it('a read that meets errors and dropped connections gets its answer, or fails after exactly three tries', async () => {
    const pve = fx.client();
    fx.sim.faults.set({ seed: 7, errorRate: 0.3, dropRate: 0.3, pathPattern: '^/nodes$' });
    let answered = 0;
    let failed = 0;
    for (let i = 0; i < 20; i++) {
      const mark = fx.sim.requests.length;
      const outcome = await pve.nodes.list().then(
        () => 'answered' as const,
        (err: unknown) => err,
      );
      const sent = since(mark, '/nodes');
      if (outcome === 'answered') {
        answered++;
        // Every try but the last met a fault; the last was answered.
        expect(sent.slice(0, -1).every((r) => r.fault)).toBe(true);
        expect(sent.at(-1)!.fault).toBeUndefined();
        expect(sent.length).toBeLessThanOrEqual(3);
      } else {
        failed++;
        expect(outcome).toBeInstanceOf(ProxmoxTransientError);
        expect(sent.map((r) => Boolean(r.fault))).toEqual([true, true, true]);
      }
    }
    // 60 % of requests fail: most calls needed a second or third try, and some ran out of them.
    const retried = fx.sim.requests.filter((r) => r.path.endsWith('/nodes') && r.fault).length;
    expect(retried).toBeGreaterThan(5);
    expect(answered).toBeGreaterThan(0);
    expect(answered + failed).toBe(20);
  });

  it('a write that meets an error is sent once', async () => {
    const pve = fx.client();
    fx.sim.faults.set({ seed: 1, errorRate: 1, pathPattern: '^/pools$' });
    const mark = fx.sim.requests.length;
    await expect(pve.transport.call('POST', '/pools', { poolid: 'once' }, nullSchema)).rejects.toBeInstanceOf(
      ProxmoxTransientError,
    );
    expect(since(mark, '/pools').map((r) => [r.method, r.fault])).toEqual([['POST', 'error']]);
  });
});
