/**
 * The workflow code's CPU as a worker runs it: replays a recorded history N times in a workflow thread
 * and prints the CPU per replay (the whole process, every thread) for three workflow threads:
 *   - `sdk`: the SDK's own (a watchdog thread per call into the sandbox, the promise hook), as before;
 *   - `ferry`: ferry's (worker/workflow-thread.ts: watched from the main thread), stack traces kept (the default);
 *   - `ferry-no-stacks`: ferry's with `worker.workflowStackTraces: false`.
 * Each mode runs in its own process, alternating, `--rounds` times, so all see the same load on a
 * shared machine.
 *
 *   node --import tsx bench/workflow-replay.ts [--history test/histories/migrate-vm.json] [--runs 60] [--rounds 3]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { workerClassSharingOneWorkflowThread } from '../worker/shared-workflow-thread';
import { writeWorkflowBundle } from '../worker/workflow-bundle';
import { REPO_ROOT } from '../src/paths';
import { flag } from './lib/flag';

interface StoredHistory {
  workflowId: string;
  history: unknown;
}

const MODES = ['sdk', 'ferry', 'ferry-no-stacks'] as const;
type Mode = (typeof MODES)[number];

/** One mode, in this process: a warm-up replay, then `runs` replays; prints CPU ms per replay as JSON. */
async function measure(mode: Mode, bundle: string, file: string, runs: number): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });
  const WorkerClass = mode === 'sdk' ? Worker : workerClassSharingOneWorkflowThread({ stackTraces: mode === 'ferry' });
  const stored = JSON.parse(readFileSync(file, 'utf8')) as StoredHistory;
  // Replay Workers default to debugMode (workflows in this thread); a worker runs them in a workflow thread.
  const options = { workflowBundle: { codePath: bundle }, debugMode: false };
  await WorkerClass.runReplayHistory(options, stored.history, stored.workflowId);
  const before = process.cpuUsage();
  const started = Date.now();
  const histories = Array.from({ length: runs }, () => ({ workflowId: stored.workflowId, history: stored.history }));
  for await (const result of WorkerClass.runReplayHistories(options, histories)) {
    if (result.error) throw result.error;
  }
  const cpu = process.cpuUsage(before);
  console.log(
    JSON.stringify({
      cpuMs: (cpu.user + cpu.system) / 1000 / runs,
      wallMs: (Date.now() - started) / runs,
      rssMiB: process.memoryUsage().rss / 2 ** 20,
    }),
  );
}

function main(): void {
  const file = path.resolve(flag('history', path.join(REPO_ROOT, 'test', 'histories', 'migrate-vm.json')));
  const runs = Number(flag('runs', '60'));
  const rounds = Number(flag('rounds', '3'));
  const mode = flag('mode', '') as Mode;
  const run = MODES.includes(mode) ? measure(mode, flag('bundle', ''), file, runs) : compare(file, runs, rounds);
  run.catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

async function compare(file: string, runs: number, rounds: number): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ferry-replay-'));
  const bundle = path.join(dir, 'workflow-bundle.js');
  try {
    await writeWorkflowBundle(bundle);
    console.log(
      `${runs} replays of ${path.relative(REPO_ROOT, file)} per process, ${rounds} rounds; load ${loadavg()[0]!.toFixed(1)}`,
    );
    const figures: Record<Mode, number[]> = { sdk: [], ferry: [], 'ferry-no-stacks': [] };
    for (let round = 1; round <= rounds; round++) {
      for (const each of MODES) {
        const child = spawnSync(
          process.execPath,
          [
            ...process.execArgv,
            __filename,
            '--mode',
            each,
            '--bundle',
            bundle,
            '--history',
            file,
            '--runs',
            String(runs),
          ],
          { encoding: 'utf8' },
        );
        const line = child.stdout.trim().split('\n').pop() ?? '';
        if (child.status !== 0 || !line.startsWith('{'))
          throw new Error(`replay (${each}) failed: ${child.stderr.slice(-2000)}`);
        const { cpuMs, wallMs, rssMiB } = JSON.parse(line) as { cpuMs: number; wallMs: number; rssMiB: number };
        figures[each].push(cpuMs);
        console.log(
          `round ${round} ${each.padEnd(15)} CPU ${cpuMs.toFixed(1)} ms per replay, wall ${wallMs.toFixed(1)} ms, RSS ${rssMiB.toFixed(0)} MiB`,
        );
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const sdk = median(figures.sdk);
    console.log('median CPU per replay:');
    for (const each of MODES)
      console.log(
        `  ${each.padEnd(15)} ${median(figures[each]).toFixed(1)} ms (ratio to sdk ${(median(figures[each]) / sdk).toFixed(2)})`,
      );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
