/**
 * Proxmox client benchmark against the simulator on loopback (PVE 9.1 flavour, verified TLS):
 * 2,000 config reads and 200 VM creations, with more operations in flight than the client's pool has
 * connections. Prints calls/s, p50/p99 latency and the TCP connections the simulator accepted: the
 * client must never open more than its pool size. Run: npm run bench:proxmox
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ProxmoxClient } from '../src/proxmox';
import { sampleCluster, sampleCredentials } from '../lab/proxmox-sim/sample-cluster';
import { startProxmoxSimulator } from '../lab/proxmox-sim/server';

const POOL_SIZE = 4;
const IN_FLIGHT = 16;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function phase(name: string, count: number, op: (i: number) => Promise<unknown>, requestsSoFar: () => number) {
  const latencies: number[] = [];
  const requestsBefore = requestsSoFar();
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < count) {
        const i = next++;
        const t = performance.now();
        await op(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const calls = requestsSoFar() - requestsBefore;
  latencies.sort((a, b) => a - b);
  console.log(
    `${name.padEnd(16)} ${String(count).padStart(5)} ops  ${(count / seconds).toFixed(0).padStart(6)} ops/s  ${String(calls).padStart(6)} HTTP calls  ${(calls / seconds).toFixed(0).padStart(6)} calls/s  p50 ${percentile(latencies, 50).toFixed(1)} ms  p99 ${percentile(latencies, 99).toFixed(1)} ms`,
  );
}

async function main() {
  const stateDir = mkdtempSync(path.join(tmpdir(), 'ferry-bench-pve-'));
  const credentials = sampleCredentials();
  const sim = await startProxmoxSimulator(sampleCluster(stateDir, '9.1', credentials));
  const client = new ProxmoxClient({
    host: sim.host,
    port: sim.port,
    validateCerts: true,
    caFile: sim.caFile,
    auth: { kind: 'token', tokenId: credentials.tokenId, secret: credentials.tokenSecret },
    connections: POOL_SIZE,
    taskPollIntervalMs: 50,
  });
  try {
    console.log(
      `Proxmox simulator ${sim.url} (PVE ${sim.flavour}), client pool ${POOL_SIZE} connections, ${IN_FLIGHT} operations in flight`,
    );
    await client.vms.create({ node: 'pve1', vmid: 100, name: 'bench-read', cores: 2, memory: 2048 });
    await phase(
      'config reads',
      2000,
      () => client.config.get('pve1', 100),
      () => sim.requests.length,
    );
    await phase(
      'VM creations',
      200,
      (i) => client.vms.create({ node: `pve${(i % 3) + 1}`, vmid: 1000 + i, name: `bench${i}`, cores: 1, memory: 512 }),
      () => sim.requests.length,
    );
    const { opened, peakOpen } = sim.connections;
    console.log(
      `connections opened: ${opened} (peak open at once: ${peakOpen}); pool size ${POOL_SIZE}: ${opened <= POOL_SIZE ? 'OK, within the pool' : 'EXCEEDED'}`,
    );
    if (opened > POOL_SIZE) process.exitCode = 1;
  } finally {
    await client.close();
    await sim.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

void main();
