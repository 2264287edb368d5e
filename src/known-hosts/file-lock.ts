import { promises as fs } from 'node:fs';
import { hostname } from 'node:os';
import { FerryError } from '../errors';

export interface FileLockOptions {
  /** Give up after this long (default 30 s). */
  timeoutMs?: number;
  /** A lock older than this is taken to be left behind by a crash (default 60 s). */
  staleMs?: number;
}

/** Callers in this process, by lock path: they queue here instead of polling the lock file. */
const inProcess = new Map<string, Promise<void>>();

/**
 * Runs `work` holding an exclusive lock on `lockPath`: within this process a queue per path, across
 * processes a lock file created with O_EXCL (`wx`), retried with backoff. A lock whose holder is gone
 * (same host, its pid no longer runs) or that is older than `staleMs` is removed and taken.
 */
export async function withFileLock<T>(
  lockPath: string,
  work: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const before = inProcess.get(lockPath) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => (release = resolve));
  const queued = before.then(() => mine);
  inProcess.set(lockPath, queued);
  try {
    await before;
    await acquire(lockPath, options.timeoutMs ?? 30_000, options.staleMs ?? 60_000);
    try {
      return await work();
    } finally {
      await fs.rm(lockPath, { force: true });
    }
  } finally {
    release();
    if (inProcess.get(lockPath) === queued) inProcess.delete(lockPath);
  }
}

async function acquire(lockPath: string, timeoutMs: number, staleMs: number): Promise<void> {
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await fs.open(lockPath, 'wx', 0o600);
      await handle.writeFile(`${process.pid} ${hostname()}\n`);
      await handle.close();
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (await isStale(lockPath, staleMs)) {
      await fs.rm(lockPath, { force: true });
      continue;
    }
    if (Date.now() - started > timeoutMs) {
      throw new FerryError(
        `${lockPath} is held by another process for more than ${Math.round(timeoutMs / 1000)} s; remove it if no ferry worker is running`,
        'transient',
      );
    }
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(500, 10 * 2 ** Math.min(attempt, 6)) * (0.5 + Math.random() / 2)),
    );
  }
}

async function isStale(lockPath: string, staleMs: number): Promise<boolean> {
  let content: string;
  let mtimeMs: number;
  try {
    [content, mtimeMs] = await Promise.all([fs.readFile(lockPath, 'utf8'), fs.stat(lockPath).then((s) => s.mtimeMs)]);
  } catch {
    return false; // released meanwhile (or not readable): just try again
  }
  if (Date.now() - mtimeMs > staleMs) return true;
  const [pid, host] = content.trim().split(' ');
  // An empty file is a holder between open and write: not stale until it is old.
  if (!pid || host !== hostname() || Number(pid) === process.pid) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
