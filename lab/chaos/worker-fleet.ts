import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { REPO_ROOT } from '../../src/paths';

interface Member {
  child: ChildProcess;
  output: string;
  exited: Promise<void>;
}

export interface WorkerFleet {
  size: number;
  /** kill -9 worker `index` (it dies mid-activity, as a crashed host would) and start a fresh one in its place. */
  killAndReplace(index: number): Promise<void>;
  /** A worker's output (after stop(), for a failure report). */
  output(index: number): string;
  stop(): Promise<void>;
}

/**
 * `size` processes of ferry's real worker (`node --import tsx worker.ts --config …`), each serving every
 * queue, secrets in their environment only.
 */
export async function startWorkerFleet(size: number, document: Record<string, unknown>, env: Record<string, string>, stateDir: string): Promise<WorkerFleet> {
  const configFile = path.join(stateDir, 'chaos-worker.yaml');
  writeFileSync(configFile, stringify(document));
  const start = async (index: number): Promise<Member> => {
    // A worker started while Temporal restarts exits at once: try again until one serves.
    for (let attempt = 1; ; attempt++) {
      const member = spawnWorker(configFile, env);
      const served = await serving(member, 120_000);
      if (served) return member;
      if (attempt >= 10) throw new Error(`chaos: worker ${index + 1} did not start:\n${member.output.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  };
  const members: Array<Promise<Member>> = Array.from({ length: size }, (_, i) => start(i));
  await Promise.all(members);
  let outputs: string[] = [];
  return {
    size,
    async killAndReplace(index) {
      // A worker still starting (replaced by an earlier kill) dies once it serves.
      const member = await members[index]!;
      member.child.kill('SIGKILL');
      await member.exited;
      // The replacement starts in the background (bundling takes a while): the run goes on meanwhile.
      members[index] = start(index);
      members[index]!.catch(() => undefined);
    },
    output: (index) => outputs[index] ?? '',
    async stop() {
      const all = await Promise.all(members);
      outputs = all.map((m) => m.output);
      await Promise.all(
        all.map(async (m) => {
          if (m.child.exitCode === null && m.child.signalCode === null) m.child.kill('SIGTERM');
          const timer = setTimeout(() => m.child.kill('SIGKILL'), 10_000);
          await m.exited;
          clearTimeout(timer);
        }),
      );
    },
  };
}

function spawnWorker(configFile: string, env: Record<string, string>): Member {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'worker.ts'), '--config', configFile], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env, FERRY_LOG_LEVEL: 'ERROR' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const member: Member = { child, output: '', exited: new Promise((resolve) => child.once('exit', () => resolve())) };
  const keep = (chunk: Buffer) => {
    member.output = (member.output + chunk.toString()).slice(-20_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return member;
}

async function serving(member: Member, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!/ferry worker: .* queues /.test(member.output)) {
    if (member.child.exitCode !== null || Date.now() > deadline) {
      member.child.kill('SIGKILL');
      await member.exited;
      return false;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}
