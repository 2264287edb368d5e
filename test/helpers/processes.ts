import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { readFileSync } from 'node:fs';

export const ROOT = path.join(__dirname, '..', '..');

export interface Spawned {
  child: ChildProcess;
  output(): string;
  /** Resolves when `pattern` appears in stdout+stderr, rejects if the process exits first or time runs out. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

/**
 * The child's exit code, once its output has been read too. 'exit' can come before the last chunks of
 * stdout and stderr are read (on a loaded machine a whole short run's output was still unread: a
 * refusal's test saw ""), so this waits for both pipes to close as well — at most `drainMs`, since a
 * grandchild may hold them open.
 */
export function exitAfterOutput(child: ChildProcess, drainMs = 5_000): Promise<number | null> {
  const pipes = [child.stdout, child.stderr].filter((p) => p !== null);
  const drained = Promise.all(pipes.map((p) => new Promise((r) => (p.closed ? r(undefined) : p.once('close', r)))));
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      const cap = new Promise((r) => setTimeout(r, drainMs).unref());
      void Promise.race([drained, cap]).then(() => resolve(code));
    }),
  );
}

/** Runs the `ferry` command as a user would (bin/ferry.js), collecting its output. */
export function spawnFerry(args: string[], env: NodeJS.ProcessEnv = {}): Spawned {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'ferry.js'), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const l of listeners) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = exitAfterOutput(child);
  return {
    child,
    exited,
    output: () => output,
    waitFor(pattern, timeoutMs = 120_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = output.match(pattern);
          if (m) {
            cleanup();
            resolve(m);
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out waiting for ${pattern}; output:\n${output}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        void exited.then((code) => {
          if (listeners.has(check)) {
            cleanup();
            reject(new Error(`process exited (${code}) before ${pattern}; output:\n${output}`));
          }
        });
        check();
      });
    },
  };
}

/** Runs a command to completion. */
export function run(file: string, args: string[], options: { cwd?: string; timeoutMs?: number } = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(file, args, { cwd: options.cwd ?? ROOT, timeout: options.timeoutMs ?? 120_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** A process's state letter from /proc/<pid>/stat (R running, S sleeping, T stopped). */
export function processState(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.charAt(stat.lastIndexOf(')') + 2);
}
