import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { REPO_ROOT } from '../../src/paths';

interface Member {
  child: ChildProcess;
  output: string;
  exited: Promise<void>;
  /** Killed by the fleet (a scheduled kill, a start that failed, stop()), not dead on its own. */
  killed: boolean;
}

export interface WorkerFleet {
  size: number;
  /** kill -9 worker `index` (it dies mid-activity, as a crashed host would) and start a fresh one in its place. */
  killAndReplace(index: number): Promise<void>;
  /** A worker's output (after stop(), for a failure report). */
  output(index: number): string;
  stop(): Promise<void>;
}

/** How long a worker may take to serve, over all its attempts (a Temporal restart makes it exit at once). */
const START_BUDGET_MS = 120_000;

/**
 * `size` processes of ferry's real worker (`node --import tsx worker.ts --config …`), each serving every
 * queue, secrets in their environment only. A worker that dies on its own is started again, as its
 * service manager would, and said in the log with its last output: the run must not go on without it
 * unnoticed.
 */
export async function startWorkerFleet(
  size: number,
  document: Record<string, unknown>,
  env: Record<string, string>,
  stateDir: string,
  log: (line: string) => void = () => undefined,
): Promise<WorkerFleet> {
  const configFile = path.join(stateDir, 'chaos-worker.yaml');
  writeFileSync(configFile, stringify(document));
  // The process in each slot now (serving or still starting), and which start owns the slot.
  const current: Member[] = [];
  const generation: number[] = [];
  let stopped = false;

  const start = async (index: number): Promise<void> => {
    const mine = (generation[index] = (generation[index] ?? 0) + 1);
    const deadline = Date.now() + START_BUDGET_MS;
    // A worker started while Temporal restarts exits at once: try again until one serves.
    for (;;) {
      const member = spawnWorker(configFile, env);
      current[index] = member;
      if (await serving(member, deadline)) {
        void member.exited.then(() => {
          if (member.killed || stopped || current[index] !== member) return;
          const last = member.output.trim().split('\n').slice(-3).join(' | ');
          log(
            `chaos: worker ${index + 1} exited on its own (${member.child.exitCode ?? member.child.signalCode}): ${last}; starting it again`,
          );
          start(index).catch((err: unknown) => log(String(err)));
        });
        return;
      }
      // Replaced (killed by a later kill, or the fleet stopped): that one owns the slot now.
      if (stopped || generation[index] !== mine) return;
      if (Date.now() > deadline)
        throw new Error(
          `chaos: worker ${index + 1} did not serve within ${START_BUDGET_MS / 1000} s:\n${member.output.slice(-2000)}`,
        );
      await new Promise((r) => setTimeout(r, 1000));
    }
  };
  const kill = () => current.forEach((m) => m && killMember(m, 'SIGKILL'));
  try {
    await Promise.all(Array.from({ length: size }, (_, i) => start(i)));
  } catch (err) {
    stopped = true;
    kill();
    throw err;
  }
  let outputs: string[] = [];
  return {
    size,
    async killAndReplace(index) {
      // A worker still starting (replaced by an earlier kill) dies too: its start gives the slot up.
      const member = current[index]!;
      generation[index]!++;
      killMember(member, 'SIGKILL');
      await member.exited;
      // The replacement starts in the background: the run goes on meanwhile.
      start(index).catch((err: unknown) => log(String(err)));
    },
    output: (index) => outputs[index] ?? '',
    async stop() {
      stopped = true;
      outputs = current.map((m) => m.output);
      await Promise.all(
        current.map(async (m) => {
          if (m.child.exitCode === null && m.child.signalCode === null) killMember(m, 'SIGTERM');
          const timer = setTimeout(() => killMember(m, 'SIGKILL'), 10_000);
          await m.exited;
          clearTimeout(timer);
        }),
      );
    },
  };
}

function spawnWorker(configFile: string, env: Record<string, string>): Member {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(REPO_ROOT, 'worker.ts'), '--config', configFile],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env, FERRY_LOG_LEVEL: 'ERROR' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const member: Member = {
    child,
    output: '',
    exited: new Promise((resolve) => child.once('exit', () => resolve())),
    killed: false,
  };
  const keep = (chunk: Buffer) => {
    member.output = (member.output + chunk.toString()).slice(-20_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return member;
}

/** The worker says it serves before `deadline`; otherwise (it exited, was killed, or is too slow) it is gone. */
async function serving(member: Member, deadline: number): Promise<boolean> {
  while (!/ferry worker: .* queues /.test(member.output)) {
    if (member.child.exitCode !== null || member.child.signalCode !== null || Date.now() > deadline) {
      killMember(member, 'SIGKILL');
      await member.exited;
      return false;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

function killMember(member: Member, signal: NodeJS.Signals): void {
  member.killed = true;
  member.child.kill(signal);
}
