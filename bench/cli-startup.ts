/**
 * How long `ferry` takes to answer: `ferry --help` and `ferry status <workflow>` (a finished doctor
 * workflow, and a running workflow whose queue no worker polls), each run N times as a user runs it,
 * against a Temporal dev server with a ferry worker. Prints wall and CPU time (median, min, max):
 * on a shared machine read the CPU time and the ratios.
 *
 *   node --import tsx bench/cli-startup.ts [--runs 5] [--ferry /other/clone/bin/ferry.js] [--compare /before/bin/ferry.js]
 *
 * With --compare, each case alternates between the two (before, after, before, …), so that a before/after
 * comparison on a shared machine sees the same load.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { stringify } from 'yaml';
import { startDevServer } from '../lab/temporal-dev-server';
import { REPO_ROOT } from '../src/paths';
import { startWorkerProcess } from '../test/helpers/worker-process';
import { flag } from './lib/flag';

interface Timing {
  wallMs: number;
  cpuMs: number;
  code: number | null;
}

/** One run: wall clock measured here, the child's CPU time (user + system) from bash's `time`. */
function timeOnce(ferry: string, args: string[], env: Record<string, string>): Timing {
  const started = performance.now();
  const result = spawnSync(
    'bash',
    ['-c', 'TIMEFORMAT="%U %S"; time node "$@" >/dev/null 2>&1', 'time', ferry, ...args],
    {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    },
  );
  const wallMs = performance.now() - started;
  const [user, sys] = result.stderr.trim().split(/\s+/).slice(-2).map(Number);
  return { wallMs, cpuMs: ((user ?? 0) + (sys ?? 0)) * 1000, code: result.status };
}

function summary(label: string, runs: Timing[]): string {
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const wall = runs.map((r) => r.wallMs);
  const cpu = runs.map((r) => r.cpuMs);
  return `${label.padEnd(43)} wall median ${median(wall).toFixed(0).padStart(5)} ms (min ${Math.min(...wall).toFixed(0)}, max ${Math.max(...wall).toFixed(0)})   CPU median ${median(
    cpu,
  )
    .toFixed(0)
    .padStart(5)} ms   exit ${[...new Set(runs.map((r) => r.code))].join('/')}`;
}

async function main(): Promise<void> {
  const runs = Number(flag('runs', '5'));
  const ferry = path.resolve(flag('ferry', path.join(REPO_ROOT, 'bin', 'ferry.js')));
  const compare = process.argv.includes('--compare') ? path.resolve(flag('compare', '')) : undefined;
  const ferries = compare ? [compare, ferry] : [ferry];
  const dir = mkdtempSync(path.join(tmpdir(), 'ferry-cli-bench-'));
  const server = await startDevServer();
  const taskQueue = 'cli-bench';
  const configFile = path.join(dir, 'ferry.yaml');
  const document = {
    temporal: { address: server.address, namespace: server.namespace },
    worker: { taskQueue, shutdownGraceTime: '1s' },
  };
  writeFileSync(configFile, stringify(document));
  const worker = await startWorkerProcess({
    config: document,
    configFile: path.join(dir, 'worker.yaml'),
    name: 'bench',
  });
  const connection = await Connection.connect({ address: server.address });
  try {
    const client = new Client({ connection, namespace: server.namespace });
    const done = await client.workflow.start('doctor', { taskQueue, workflowId: 'bench-doctor' });
    await done.result();
    const waiting = await client.workflow.start('doctor', { taskQueue: 'no-worker-here', workflowId: 'bench-waiting' });
    const env = { FERRY_CONFIG: configFile };
    const loadAverage = () =>
      loadavg()
        .map((l) => l.toFixed(1))
        .join(' ');
    console.log(`ferry: ${ferries.join(' vs ')}; ${runs} runs each; load average ${loadAverage()}`);
    const cases: Array<[string, string[]]> = [
      ['node -e 0 (Node itself)', []],
      ['ferry --help', ['--help']],
      ['ferry status <finished workflow>', ['status', done.workflowId]],
      ['ferry status <running, no worker>', ['status', waiting.workflowId]],
    ];
    for (const [label, args] of cases) {
      const timings = ferries.map((): Timing[] => []);
      for (let run = 0; run < runs; run++) {
        ferries.forEach((f, i) => timings[i]!.push(args.length ? timeOnce(f, args, env) : timeOnce('-e', ['0'], env)));
      }
      ferries.forEach((_f, i) =>
        console.log(summary(compare ? `${label} [${i === 0 ? 'before' : 'after'}]` : label, timings[i]!)),
      );
    }
    console.log(`load average at the end ${loadAverage()}`);
    await waiting.terminate('benchmark done');
  } finally {
    await connection.close();
    await worker.stop();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
