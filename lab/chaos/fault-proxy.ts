import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { seededRandom } from '../proxmox-sim/prng';

/** Per-request probabilities (0–1) of each fault, and a latency range added to every request. */
export interface ProxyFaults {
  seed: number;
  latencyMs?: { min: number; max: number };
  /** 503 without asking the upstream. */
  errorRate?: number;
  /** The connection is closed without an answer: half before the upstream sees the request, half after it answered (the write happened, the answer is lost). */
  dropRate?: number;
  /** 409 to a write (POST, PUT, PATCH, DELETE), without asking the upstream (NetBox's answer to a conflicting write). */
  conflictRate?: number;
  /** The request reaches the upstream without its Cookie header: a SOAP session lost (vcsim answers NotAuthenticated). */
  sessionLossRate?: number;
}

export type ProxyFaultKind = 'error' | 'drop-before' | 'drop-after' | 'conflict' | 'session-loss' | 'latency';

export interface FaultProxyOptions {
  /** Where requests go, e.g. `https://127.0.0.1:8989` or `http://127.0.0.1:8000`. */
  upstream: string;
  /** CA file to verify an HTTPS upstream. */
  upstreamCaFile?: string;
  /** Serve HTTPS with this certificate (clients keep verifying TLS as they did with the upstream). */
  tls?: { certFile: string; keyFile: string };
  faults?: ProxyFaults;
}

export interface FaultProxy {
  url: string;
  host: string;
  port: number;
  /** Faults from now on (undefined: none; requests pass through). */
  setFaults(faults: ProxyFaults | undefined): void;
  /** Injected faults so far, by kind, and requests seen. */
  counts(): Record<ProxyFaultKind | 'requests', number>;
  close(): Promise<void>;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Which fault (if any) one request gets: the draws come from the seeded PRNG in order, so a seed repeats a run's choices. */
export function chooseFault(random: () => number, faults: ProxyFaults, method: string): ProxyFaultKind | undefined {
  const roll = random();
  let edge = 0;
  const table: Array<[ProxyFaultKind, number]> = [
    ['error', faults.errorRate ?? 0],
    [random() < 0.5 ? 'drop-before' : 'drop-after', faults.dropRate ?? 0],
    ['conflict', WRITES.has(method) ? (faults.conflictRate ?? 0) : 0],
    ['session-loss', faults.sessionLossRate ?? 0],
  ];
  for (const [kind, rate] of table) {
    edge += rate;
    if (roll < edge) return kind;
  }
  return undefined;
}

/**
 * An HTTP(S) proxy in front of one dependency (vcsim, NetBox) that injects seeded faults: 5xx, 409,
 * dropped connections (before or after the upstream acted), a lost session cookie, latency.
 */
export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const upstream = new URL(options.upstream);
  const secure = upstream.protocol === 'https:';
  const agent = secure
    ? new https.Agent({
        keepAlive: true,
        ca: options.upstreamCaFile ? readFileSync(options.upstreamCaFile) : undefined,
      })
    : new http.Agent({ keepAlive: true });
  let faults = options.faults;
  let random = seededRandom(faults?.seed ?? 1);
  const counts: Record<ProxyFaultKind | 'requests', number> = {
    requests: 0,
    error: 0,
    'drop-before': 0,
    'drop-after': 0,
    conflict: 0,
    'session-loss': 0,
    latency: 0,
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    counts.requests++;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const fault = faults ? chooseFault(random, faults, req.method ?? 'GET') : undefined;
    const latency = faults?.latencyMs
      ? faults.latencyMs.min + random() * (faults.latencyMs.max - faults.latencyMs.min)
      : 0;
    if (latency > 0) {
      counts.latency++;
      await new Promise((r) => setTimeout(r, latency));
    }
    if (fault) counts[fault]++;
    if (fault === 'drop-before') return void req.socket.destroy();
    if (fault === 'error')
      return void res.writeHead(503, { 'content-type': 'text/plain' }).end('503 injected by the chaos fault proxy\n');
    if (fault === 'conflict') {
      return void res
        .writeHead(409, { 'content-type': 'application/json' })
        .end(JSON.stringify({ detail: 'conflict injected by the chaos fault proxy' }));
    }
    const headers = { ...req.headers, host: upstream.host };
    if (fault === 'session-loss') delete headers.cookie;
    const forward = (secure ? https : http).request(
      {
        protocol: upstream.protocol,
        hostname: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers,
        agent,
      },
      (answer) => {
        if (fault === 'drop-after') {
          answer.resume();
          return void answer.once('end', () => req.socket.destroy());
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.once('error', (err) => {
      if (!res.headersSent)
        res
          .writeHead(502, { 'content-type': 'text/plain' })
          .end(`fault proxy: upstream ${upstream.host}: ${err.message}\n`);
      else res.destroy();
    });
    forward.end(body);
  };
  const listener = (req: http.IncomingMessage, res: http.ServerResponse) => {
    handle(req, res).catch(() => res.destroy());
  };
  const server = options.tls
    ? https.createServer({ cert: readFileSync(options.tls.certFile), key: readFileSync(options.tls.keyFile) }, listener)
    : http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const host = '127.0.0.1';
  return {
    url: `${options.tls ? 'https' : 'http'}://${host}:${port}`,
    host,
    port,
    setFaults(next) {
      faults = next;
      random = seededRandom(next?.seed ?? 1);
    },
    counts: () => ({ ...counts }),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
