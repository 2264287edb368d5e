/**
 * Benchmark: how the status of a large wave answers. Starts one wave of N VMs (default 1,000), not
 * approved, so every VM runs up to the approval gate, with ferry's real worker in its own process at its
 * defaults (workflow cache 50; the wave itself is cached by the coordination Worker). While
 * the VMs get there and once all wait, it times the wave's `waveSummary` query (what `ferry status`
 * asks) and the full `status` query, and prints their payload sizes and the wave's history length and
 * size against Temporal's limits (2 MB per payload, 50k events / 50 MB of history). At the gate it also
 * times `ferry status <wave>` itself (median of 5), and the full `--json` answer's size.
 *
 *   npm run bench -- bench/wave-status.ts [--vms 1000] [--latency 100] [--minutes 20] [--coordination-tasks N]
 *
 * It prints figures; it is not a test.
 */
import { execFileSync } from 'node:child_process';
import { coordinationQueue } from '../src/domain/task-queues';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { waveStatusQuery, waveSummaryQuery } from '../src/domain/messages';
import { startMigrationSims } from '../lab/migration-lab';
import { startDevServer } from '../lab/temporal-dev-server';
import { ESTATE } from '../lab/vcsim/estate';
import { ROOT } from '../test/helpers/processes';
import { startWorkerProcess } from '../test/helpers/worker-process';
import { writeWorkflowBundle } from '../worker/workflow-bundle';
import type { migrationWave } from '../workflows/migration-wave';
import { ms, percentile } from './lib/percentiles';
import { describeLongTasks, workflowTasks } from './lib/workflow-tasks';
import { mib, processStats } from './lib/process-stats';

const { values: args } = parseArgs({
  options: {
    vms: { type: 'string', default: '1000' },
    latency: { type: 'string', default: '100' },
    minutes: { type: 'string', default: '20' },
    'max-cached': { type: 'string' },
    'coordination-tasks': { type: 'string' },
  },
});
const N = Number(args.vms);
const LATENCY_MS = Number(args.latency);
const DEADLINE_MS = Number(args.minutes) * 60_000;

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; bytes: number; value: T }> {
  const started = performance.now();
  const value = await fn();
  return { ms: performance.now() - started, bytes: Buffer.byteLength(JSON.stringify(value)), value };
}

/** One sample: the summary query (25 and 200 rows), the full status query, the history's length and size. */
async function sample(
  wave: WorkflowHandle,
  label: string,
  summaryMs: number[],
  cli?: () => { ms: number },
): Promise<number> {
  const summary = await timed(() => wave.query(waveSummaryQuery, { limit: 25 }));
  summaryMs.push(summary.ms);
  const page = await timed(() => wave.query(waveSummaryQuery, { limit: 200 }));
  const full = await timed(() => wave.query(waveStatusQuery)).catch((err: unknown) => ({
    ms: NaN,
    bytes: NaN,
    value: String(err),
  }));
  const { raw } = await wave.describe();
  const info = raw.workflowExecutionInfo!;
  const atGate = summary.value.stages['awaiting-approval'] ?? 0;
  const status = cli?.();
  if (status) cliMs.push(status.ms);
  console.log(
    `${label}: ${summary.value.counts.running ?? 0} running, ${atGate} at the gate | summary (25 rows) ${ms(summary.ms)} ${kb(summary.bytes)} | ` +
      `(200 rows) ${ms(page.ms)} ${kb(page.bytes)} | full status ${ms(full.ms)} ${kb(full.bytes)} | ` +
      `history ${String(info.historyLength)} events ${kb(Number(info.historySizeBytes))}${status ? ` | ferry status ${ms(status.ms)}` : ''}`,
  );
  return atGate;
}

/** `ferry status <wave>` times while the VMs move. */
const cliMs: number[] = [];

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;

/** `ferry status <target>` as a user runs it: a new process each time. */
function cliStatus(
  configFile: string,
  env: Record<string, string>,
  target: string,
  extra: string[] = [],
): { ms: number; bytes: number } {
  const started = performance.now();
  const out = execFileSync(
    process.execPath,
    [path.join(ROOT, 'bin/ferry.js'), '-c', configFile, 'status', target, ...extra],
    {
      cwd: ROOT,
      env: { ...process.env, ...env },
      maxBuffer: 256 * 2 ** 20,
    },
  );
  return { ms: performance.now() - started, bytes: out.length };
}

async function main(): Promise<void> {
  const stateDir = mkdtempSync(path.join(tmpdir(), 'ferry-bench-'));
  const server = await startDevServer();
  const stamp = Date.now();
  const sims = await startMigrationSims({
    stateDir,
    extraVms: N,
    temporalAddress: server.address,
    vcenterName: `bench-${stamp}`,
    methodDelay: { RelocateVm: LATENCY_MS, LockHandoff: 0 },
    sim: { importTaskMs: LATENCY_MS },
    limits: { vmotion: 20, importPerStorage: 20 },
  });
  const taskQueue = `bench-${stamp}`;
  const bundleFile = path.join(stateDir, 'workflow-bundle.js');
  const configFile = path.join(stateDir, 'ferry.yaml');
  const worker = await writeWorkflowBundle(bundleFile)
    .then(() =>
      startWorkerProcess({
        config: {
          ...sims.document,
          worker: {
            taskQueue,
            shutdownGraceTime: '1s',
            ...(args['max-cached'] ? { maxCachedWorkflows: Number(args['max-cached']) } : {}),
            taskQueues: {
              main: { maxConcurrentActivities: 100 },
              vmotion: { maxConcurrentActivities: 20 },
              import: { maxConcurrentActivities: 20 },
              sdn: { maxConcurrentActivities: 1 },
              // --coordination-tasks N: the coordination Worker's workflow task slots (default 10).
              ...(args['coordination-tasks']
                ? {
                    coordination: {
                      maxConcurrentActivities: 10,
                      maxConcurrentWorkflowTaskExecutions: Number(args['coordination-tasks']),
                    },
                  }
                : {}),
            },
          },
        },
        configFile,
        env: { ...sims.env, FERRY_WORKFLOW_BUNDLE: bundleFile },
        name: 'bench',
      }),
    )
    .catch(async (err: unknown) => {
      await sims.stop();
      await server.stop();
      rmSync(stateDir, { recursive: true, force: true });
      throw err;
    });
  // A worker that dies mid-run says why.
  worker.child.once('exit', (code, signal) =>
    console.log(`worker exited (${String(code ?? signal)}):\n${worker.output().slice(-4000)}`),
  );
  const clientConnection = await Connection.connect({ address: server.address });
  const client = new Client({ connection: clientConnection });
  const started = Date.now();
  const summaryMs: number[] = [];
  try {
    const waveId = `bench-status-${stamp}`;
    const wave = await client.workflow.start<typeof migrationWave>('migrationWave', {
      taskQueue: coordinationQueue(taskQueue),
      workflowId: `bench-status-wave-${stamp}`,
      args: [{ waveId, selection: { folder: `/${ESTATE.datacenter}/vm/${ESTATE.scaleFolder}` }, maxConcurrent: N }],
    });
    console.log(
      `wave of ${N} VMs to the approval gate (vMotion/import ${LATENCY_MS} ms, limits 20/20), worker pid ${worker.child.pid}`,
    );
    for (;;) {
      await new Promise((r) => setTimeout(r, 5_000));
      const at = `${((Date.now() - started) / 1000).toFixed(0)} s`;
      const atGate = await sample(wave, at, summaryMs, () => cliStatus(configFile, sims.env, wave.workflowId)).catch(
        (err: unknown) => {
          console.log(`${at}: query failed: ${String(err)}`);
          return 0;
        },
      );
      if (atGate >= N || Date.now() - started > DEADLINE_MS) break;
    }
    const ramp = [...summaryMs];
    const atGate: number[] = [];
    for (let i = 0; i < 5; i++) await sample(wave, `at the gate ${i + 1}`, atGate);
    const cli = Array.from({ length: 5 }, () => cliStatus(configFile, sims.env, wave.workflowId));
    const cliJson = cliStatus(configFile, sims.env, wave.workflowId, ['--json']);
    const { raw } = await wave.describe();
    const info = raw.workflowExecutionInfo!;
    console.log(
      `summary query while VMs ran: p50 ${ms(percentile(ramp, 50))}, p99 ${ms(percentile(ramp, 99))}, max ${ms(Math.max(...ramp))} (${ramp.length})`,
    );
    console.log(
      `ferry status while VMs ran:  p50 ${ms(percentile(cliMs, 50))}, p99 ${ms(percentile(cliMs, 99))}, max ${ms(Math.max(...cliMs))} (${cliMs.length})`,
    );
    console.log(`summary query at the gate:   p50 ${ms(percentile(atGate, 50))}, max ${ms(Math.max(...atGate))}`);
    console.log(
      `ferry status <wave>:         median ${ms(
        percentile(
          cli.map((c) => c.ms),
          50,
        ),
      )} of 5 (${cli.map((c) => ms(c.ms)).join(', ')}); --json ${kb(cliJson.bytes)}`,
    );
    console.log(
      `wave history:                ${String(info.historyLength)} events, ${kb(Number(info.historySizeBytes))} (limits 50k events, 50 MB)`,
    );
    console.log(`worker RSS at the gate:      ${mib(processStats(worker.child.pid!).rssBytes)}`);
    // The query waits behind the wave's own tasks: the long ones, and whether each was a replay from the normal queue.
    console.log(`the wave's workflow tasks of 1 s or more:`);
    for (const line of describeLongTasks(await workflowTasks(client, wave.workflowId, wave.firstExecutionRunId), 1000))
      console.log(`  ${line}`);
    await wave.terminate('benchmark done');
  } finally {
    await worker.stop();
    await clientConnection.close();
    await sims.stop();
    await server.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
