/**
 * The workflow code's own CPU: replays a recorded history N times in this process and prints the CPU
 * per replay, with the SDK's promise hook (workflow stack traces, `worker.workflowStackTraces: true`,
 * the default) and without it. Each mode runs in its own process, alternating, `--rounds` times,
 * so both see the same load on a shared machine.
 *
 *   node --import tsx bench/workflow-replay.ts [--history test/histories/migrate-vm.json] [--runs 60] [--rounds 3]
 *
 * Needs the prebuilt bundle (`npm run build`, dist/workflow-bundle.js).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { PREBUILT_BUNDLE } from '../worker/create-workers';
import { REPO_ROOT } from '../src/paths';
import { flag } from './lib/flag';

interface StoredHistory {
  workflowId: string;
  history: unknown;
}

/** One mode, in this process: a warm-up replay, then `runs` replays; prints CPU ms per replay as JSON. */
async function measure(mode: 'stacks' | 'no-stacks', file: string, runs: number): Promise<void> {
  if (mode === 'no-stacks') {
    // What worker/shared-workflow-thread.ts does in the workflow thread; here the replay runs in-process.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    (require('@temporalio/worker/lib/workflow/vm-shared') as { globalHandlers: { setPromiseHook: () => void } }).globalHandlers.setPromiseHook = () => {};
  }
  Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });
  const stored = JSON.parse(readFileSync(file, 'utf8')) as StoredHistory;
  const options = { workflowBundle: { codePath: PREBUILT_BUNDLE }, debugMode: true };
  await Worker.runReplayHistory(options, stored.history, stored.workflowId);
  const before = process.cpuUsage();
  const started = Date.now();
  const histories = Array.from({ length: runs }, () => ({ workflowId: stored.workflowId, history: stored.history }));
  for await (const result of Worker.runReplayHistories(options, histories)) {
    if (result.error) throw result.error;
  }
  const cpu = process.cpuUsage(before);
  console.log(JSON.stringify({ cpuMs: (cpu.user + cpu.system) / 1000 / runs, wallMs: (Date.now() - started) / runs, rssMiB: process.memoryUsage().rss / 2 ** 20 }));
}

function main(): void {
  const file = path.resolve(flag('history', path.join(REPO_ROOT, 'test', 'histories', 'migrate-vm.json')));
  const runs = Number(flag('runs', '60'));
  const rounds = Number(flag('rounds', '3'));
  const mode = flag('mode', '');
  if (mode === 'stacks' || mode === 'no-stacks') {
    measure(mode, file, runs).catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
    return;
  }
  console.log(`${runs} replays of ${path.relative(REPO_ROOT, file)} per process, ${rounds} rounds; load ${loadavg()[0]!.toFixed(1)}`);
  const figures: Record<string, number[]> = { stacks: [], 'no-stacks': [] };
  for (let round = 1; round <= rounds; round++) {
    for (const each of ['stacks', 'no-stacks'] as const) {
      const child = spawnSync(process.execPath, [...process.execArgv, __filename, '--mode', each, '--history', file, '--runs', String(runs)], { encoding: 'utf8' });
      const line = child.stdout.trim().split('\n').pop() ?? '';
      if (child.status !== 0 || !line.startsWith('{')) throw new Error(`replay (${each}) failed: ${child.stderr.slice(-2000)}`);
      const { cpuMs, wallMs, rssMiB } = JSON.parse(line) as { cpuMs: number; wallMs: number; rssMiB: number };
      figures[each]!.push(cpuMs);
      console.log(`round ${round} ${each.padEnd(9)} CPU ${cpuMs.toFixed(1)} ms per replay, wall ${wallMs.toFixed(1)} ms, RSS ${rssMiB.toFixed(0)} MiB`);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const [on, off] = [median(figures.stacks!), median(figures['no-stacks']!)];
  console.log(`median CPU per replay: with stack traces ${on.toFixed(1)} ms, without ${off.toFixed(1)} ms (ratio ${(off / on).toFixed(2)})`);
}

main();
