import { MockActivityEnvironment } from '@temporalio/testing';
import { beatWhile } from '../../activities/heartbeat';

describe('beatWhile', () => {
  const slow = <T>(value: T, ms: number) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

  it('heartbeats every third of the heartbeat timeout while the work runs, and stops after', async () => {
    const env = new MockActivityEnvironment({ heartbeatTimeoutMs: 300 });
    const beats: unknown[] = [];
    env.on('heartbeat', (d: unknown) => beats.push(d));
    await expect(env.run(() => beatWhile('discovery', slow('done', 1_000)))).resolves.toBe('done');
    const during = beats.length;
    expect(during).toBeGreaterThanOrEqual(2);
    expect(beats[0]).toMatchObject({ running: 'discovery' });
    await slow(undefined, 400);
    expect(beats.length).toBe(during);
  });

  it('passes a failure through, and does not beat without a heartbeat timeout', async () => {
    const env = new MockActivityEnvironment({ heartbeatTimeoutMs: undefined });
    const beats: unknown[] = [];
    env.on('heartbeat', (d: unknown) => beats.push(d));
    await expect(env.run(() => beatWhile('x', Promise.reject(new Error('vCenter went away'))))).rejects.toThrow(
      'vCenter went away',
    );
    await env.run(() => beatWhile('x', slow(1, 300)));
    expect(beats).toEqual([]);
  });
});
