import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { exitAfterOutput, ROOT } from './processes';
import { workflowBundlePath } from './temporal';

export interface WorkerProcess {
  child: ChildProcess;
  output(): string;
  /** SIGKILL: the process dies mid-activity, as a crashed host would. */
  kill(): Promise<void>;
  /** SIGTERM: graceful shutdown; resolves with the exit code. */
  stop(): Promise<number | null>;
}

export interface WorkerProcessOptions {
  /** The ferry.yaml document (no secrets: pass them in `env`). */
  config: Record<string, unknown>;
  /** Where to write the config file. */
  configFile: string;
  env?: Record<string, string>;
  /** Log prefix for this worker's output. */
  name?: string;
  /** Extra node options before the script (e.g. `--cpu-prof`, which NODE_OPTIONS refuses). */
  nodeArgs?: string[];
  /** The compiled worker (dist/worker.js, as the container runs it) instead of worker.ts through tsx. */
  compiled?: boolean;
  /** The checkout whose worker.ts runs (default this one): a benchmark compares with another. */
  root?: string;
  /**
   * Load the workflow bundle the global setup built from the same sources (FERRY_WORKFLOW_BUNDLE, as the
   * container loads its prebuilt one) instead of bundling with webpack at start: several seconds less
   * per start on a busy machine, for tests that start many workers. Off by default.
   */
  prebuiltBundle?: boolean;
}

/**
 * Runs ferry's real worker (`node --import tsx worker.ts`) as a separate process, for tests that kill
 * a worker mid-flight or need two workers. Resolves once the worker serves its queues.
 */
export async function startWorkerProcess(options: WorkerProcessOptions): Promise<WorkerProcess> {
  writeFileSync(options.configFile, stringify(options.config));
  const root = options.root ?? ROOT;
  const script = options.compiled
    ? [path.join(root, 'dist', 'worker.js')]
    : ['--import', 'tsx', path.join(root, 'worker.ts')];
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...script, '--config', options.configFile], {
    cwd: root,
    env: {
      ...process.env,
      ...(options.prebuiltBundle ? { FERRY_WORKFLOW_BUNDLE: workflowBundlePath() } : {}),
      FERRY_LOG_LEVEL: process.env.FERRY_LOG_LEVEL ?? 'WARN',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = exitAfterOutput(child);

  const deadline = Date.now() + 120_000;
  while (!/ferry worker: .* queues /.test(output)) {
    if (child.exitCode !== null)
      throw new Error(`worker ${options.name ?? ''} exited early (${child.exitCode}):\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`worker ${options.name ?? ''} did not start in time:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    output: () => output,
    async kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
