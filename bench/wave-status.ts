/**
 * Benchmark: how the status of a large wave answers. Starts one wave of N VMs (default 1,000), not
 * approved, so every VM runs up to the approval gate; while they get there and once all wait, times the
 * wave's `waveSummary` query (what `ferry status` asks) and its full `status` query, and prints their
 * payload sizes and the wave's history length and size, against Temporal's limits (2 MB per payload,
 * 50k events / 50 MB of history).
 *
 *   npm run bench -- bench/wave-status.ts [--vms 1000] [--minutes 15]
 *
 * It prints figures; it is not a test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import { parseConfig } from '../src/config';
import { waveStatusQuery, waveSummaryQuery } from '../src/domain/messages';
import { heavyQueue } from '../src/domain/task-queues';
import { startMigrationSims } from '../lab/migration-lab';
import { startDevServer } from '../lab/temporal-dev-server';
import { ESTATE } from '../lab/vcsim/estate';
import { WORKFLOWS_PATH } from '../src/paths';
import { createDependencies } from '../worker/dependencies';
import type { migrationWave } from '../workflows/migration-wave';

const { values: args } = parseArgs({ options: { vms: { type: 'string', default: '1000' }, minutes: { type: 'string', default: '15' } } });
const N = Number(args.vms);
const DEADLINE_MS = Number(args.minutes) * 60_000;

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; bytes: number; value: T }> {
  const started = performance.now();
  const value = await fn();
  return { ms: performance.now() - started, bytes: Buffer.byteLength(JSON.stringify(value)), value };
}

async function sample(wave: WorkflowHandle, label: string): Promise<number> {
  const summary = await timed(() => wave.query(waveSummaryQuery, { limit: 25 }));
  const page = await timed(() => wave.query(waveSummaryQuery, { limit: 200 }));
  const full = await timed(() => wave.query(waveStatusQuery)).catch((err: unknown) => ({ ms: NaN, bytes: NaN, value: String(err) }));
  const { raw } = await wave.describe();
  const info = raw.workflowExecutionInfo!;
  const atGate = summary.value.stages['awaiting-approval'] ?? 0;
  console.log(
    `${label}: ${summary.value.vms} VMs, ${atGate} at the gate | waveSummary (25 rows) ${summary.ms.toFixed(0)} ms ${summary.bytes} B | ` +
      `(200 rows) ${page.ms.toFixed(0)} ms ${page.bytes} B | full status ${full.ms.toFixed(0)} ms ${full.bytes} B | ` +
      `history ${String(info.historyLength)} events ${String(info.historySizeBytes)} B`,
  );
  return atGate;
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });
  const stateDir = mkdtempSync(path.join(tmpdir(), 'ferry-bench-'));
  const server = await startDevServer();
  const sims = await startMigrationSims({
    stateDir,
    extraVms: N,
    temporalAddress: server.address,
    vcenterName: `bench-${Date.now()}`,
    methodDelay: { RelocateVm: 0, LockHandoff: 0 },
    limits: { vmotion: 8, importPerStorage: 4 },
  });
  const deps = await createDependencies(parseConfig(sims.document, sims.env, 'benchmark'));
  const connection = await NativeConnection.connect({ address: server.address });
  const clientConnection = await Connection.connect({ address: server.address });
  const client = new Client({ connection: clientConnection });
  const taskQueue = 'bench';
  const activities = createActivities(deps);
  const bundle = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: new DefaultLogger('WARN') });
  const workers = await Promise.all([
    Worker.create({ connection, taskQueue, workflowBundle: bundle, activities, maxConcurrentActivityTaskExecutions: 100, maxCachedWorkflows: 300 }),
    ...(['vmotion', 'import', 'sdn'] as const).map((w) => Worker.create({ connection, taskQueue: heavyQueue(taskQueue, w), activities, maxConcurrentActivityTaskExecutions: 8 })),
  ]);
  const running = workers.map((w) => w.run());
  const started = Date.now();
  try {
    const wave = await client.workflow.start<typeof migrationWave>('migrationWave', {
      taskQueue,
      workflowId: `bench-status-${Date.now()}`,
      args: [{ waveId: 'bench-status', selection: { folder: `/${ESTATE.datacenter}/vm/${ESTATE.scaleFolder}` }, maxConcurrent: N }],
    });
    for (;;) {
      await new Promise((r) => setTimeout(r, 15_000));
      const atGate = await sample(wave, `${((Date.now() - started) / 1000).toFixed(0)} s`).catch((err: unknown) => {
        console.log(`query failed: ${String(err)}`);
        return 0;
      });
      if (atGate >= N || Date.now() - started > DEADLINE_MS) break;
    }
    for (let i = 0; i < 3; i++) await sample(wave, `final ${i + 1}`);
    await wave.terminate('benchmark done');
  } finally {
    for (const w of workers) w.shutdown();
    await Promise.allSettled(running);
    await connection.close();
    await clientConnection.close();
    await deps.vsphere?.close().catch(() => undefined);
    await deps.proxmox?.close();
    await deps.proxmoxPrivileged?.close();
    await sims.stop();
    await server.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
