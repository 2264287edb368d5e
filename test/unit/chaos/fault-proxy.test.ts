import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { chooseFault, startFaultProxy, type FaultProxy } from '../../../lab/chaos/fault-proxy';
import { seededRandom } from '../../../lab/proxmox-sim/prng';

describe('chaos fault proxy', () => {
  let upstream: http.Server;
  let upstreamUrl: string;
  const seen: Array<{ method: string; url: string; cookie?: string; body: string }> = [];
  let proxy: FaultProxy;

  beforeAll(async () => {
    upstream = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, cookie: req.headers.cookie, body });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, url: req.url }));
      });
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    proxy = await startFaultProxy({ upstream: upstreamUrl });
  });
  beforeEach(() => {
    seen.length = 0;
    proxy.setFaults(undefined);
  });
  afterAll(async () => {
    await proxy.close();
    upstream.closeAllConnections();
    await new Promise((r) => upstream.close(r));
  });

  const call = (method: 'GET' | 'POST', path = '/api/x/', cookie?: string) =>
    request(`${proxy.url}${path}`, {
      method,
      body: method === 'POST' ? '{"a":1}' : undefined,
      headers: cookie ? { cookie } : {},
    });

  it('passes requests and answers through unchanged without faults', async () => {
    const answer = await call('POST', '/api/y/?q=1', 'vmware_soap_session="abc"');
    expect(answer.statusCode).toBe(200);
    expect(await answer.body.json()).toEqual({ ok: true, url: '/api/y/?q=1' });
    expect(seen).toEqual([
      { method: 'POST', url: '/api/y/?q=1', cookie: 'vmware_soap_session="abc"', body: '{"a":1}' },
    ]);
  });

  it('answers 503 without asking the upstream', async () => {
    proxy.setFaults({ seed: 1, errorRate: 1 });
    const answer = await call('GET');
    expect(answer.statusCode).toBe(503);
    await answer.body.text();
    expect(seen).toEqual([]);
  });

  it('answers 409 to writes only', async () => {
    proxy.setFaults({ seed: 1, conflictRate: 1 });
    const write = await call('POST');
    expect(write.statusCode).toBe(409);
    expect(await write.body.json()).toEqual({ detail: expect.stringContaining('conflict') });
    const read = await call('GET');
    expect(read.statusCode).toBe(200);
    await read.body.text();
    expect(seen.map((s) => s.method)).toEqual(['GET']);
  });

  it('drops connections before the upstream sees the request and after it acted', async () => {
    proxy.setFaults({ seed: 7, dropRate: 1 });
    for (let i = 0; i < 8; i++) await expect(call('POST')).rejects.toThrow();
    const counts = proxy.counts();
    expect(counts['drop-before'] + counts['drop-after']).toBeGreaterThanOrEqual(8);
    expect(counts['drop-before']).toBeGreaterThan(0);
    expect(counts['drop-after']).toBeGreaterThan(0);
    // The requests dropped after the upstream answered did reach it: the write happened, its answer was lost.
    await new Promise((r) => setTimeout(r, 100));
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.length).toBeLessThan(8);
  });

  it('loses the session: the request reaches the upstream without its cookie', async () => {
    proxy.setFaults({ seed: 1, sessionLossRate: 1 });
    const answer = await call('POST', '/sdk', 'vmware_soap_session="abc"');
    expect(answer.statusCode).toBe(200);
    await answer.body.text();
    expect(seen).toEqual([expect.objectContaining({ url: '/sdk', cookie: undefined })]);
  });

  it('adds latency within the range', async () => {
    proxy.setFaults({ seed: 1, latencyMs: { min: 150, max: 200 } });
    const started = Date.now();
    const answer = await call('GET');
    await answer.body.text();
    expect(Date.now() - started).toBeGreaterThanOrEqual(145);
  });

  it('chooses faults from the seed alone: the same seed, the same faults', () => {
    const faults = { seed: 3, errorRate: 0.1, dropRate: 0.1, conflictRate: 0.1, sessionLossRate: 0.1 };
    const draw = () => {
      const random = seededRandom(faults.seed);
      return Array.from({ length: 200 }, (_, i) => chooseFault(random, faults, i % 2 ? 'POST' : 'GET'));
    };
    const first = draw();
    expect(draw()).toEqual(first);
    const kinds = new Set(first.filter(Boolean));
    expect(kinds).toEqual(new Set(['error', 'drop-before', 'drop-after', 'conflict', 'session-loss']));
    const rate = first.filter(Boolean).length / first.length;
    expect(rate).toBeGreaterThan(0.25);
    expect(rate).toBeLessThan(0.55);
  });
});
