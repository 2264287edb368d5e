import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/** A server the lab or a test started, with the tail of its output for error messages. */
export interface ServerProcess {
  name: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  /** The last few KB of stdout+stderr. */
  output(): string;
  /** Resolves when `ready()` says so; rejects if the process exits first or time runs out. */
  waitUntil(ready: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void>;
  /** `signal` (SIGTERM by default), then SIGKILL after `graceMs`. */
  stop(options?: { graceMs?: number; signal?: NodeJS.Signals }): Promise<void>;
}

export function startServerProcess(
  name: string,
  command: string,
  args: string[],
  options: Pick<SpawnOptions, 'cwd' | 'env' | 'uid' | 'gid'> = {},
): ServerProcess {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-8000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', (err) => {
      keep(Buffer.from(`\n${String(err)}`));
      resolve(-1);
    });
  });

  return {
    name,
    child,
    exited,
    output: () => tail,
    async waitUntil(ready, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const early = await Promise.race([exited, new Promise<'running'>((r) => setTimeout(() => r('running'), 150))]);
        if (early !== 'running') throw new Error(`${name} exited with code ${early} while starting:\n${tail.trim()}`);
        if (await ready()) return;
        if (Date.now() > deadline) {
          child.kill('SIGKILL');
          throw new Error(`${name} was not ready within ${timeoutMs} ms:\n${tail.trim()}`);
        }
      }
    },
    async stop({ graceMs = 10_000, signal = 'SIGTERM' } = {}) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
