import { execFile, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { atPriority, type ConversionPriority } from '../domain/conversion';
import { ConversionError } from './errors';
import { conversionMarker } from './yield-to-cutovers';

const run = promisify(execFile);

/**
 * One libguestfs appliance for a series of calls: `guestfish --listen` starts it in the background and
 * each `guestfish --remote` call runs one command there, with its own exit code and output (the server
 * writes straight to the caller's stdout). Arguments go over as they are: no shell quoting.
 */
export class GuestfishSession {
  private constructor(
    private readonly pid: number,
    private readonly env: NodeJS.ProcessEnv,
    private readonly timeoutMs: number,
  ) {}

  /** The server and its appliance run at `priority` (they inherit it from `guestfish --listen`). */
  static async start(
    env: Record<string, string>,
    priority: ConversionPriority = 'normal',
    timeoutMs = 10 * 60_000,
  ): Promise<GuestfishSession> {
    // The marker: the server, its appliance and every remote call pause when conversions yield to a cutover.
    const fullEnv = { ...process.env, ...env, ...conversionMarker() };
    // The parent prints GUESTFISH_PID and exits; the server it forks keeps the same stdout and stderr.
    // A file, not a pipe: the server never blocks on it nor dies of EPIPE, and the line is there once
    // the parent has exited (a pipe's data can come after its 'exit').
    const dir = mkdtempSync(path.join(tmpdir(), 'ferry-guestfish-'));
    const log = path.join(dir, 'listen.log');
    const fd = openSync(log, 'w');
    let out: string;
    try {
      const code = await new Promise<number | null>((resolve, reject) => {
        const listen = atPriority({ program: 'guestfish', args: ['--listen'], env: {} }, priority);
        const child = spawn(listen.program, listen.args, { env: fullEnv, stdio: ['ignore', fd, fd] });
        child.on('error', (err) =>
          reject(
            new ConversionError(
              `cannot start guestfish (Debian package guestfish, from libguestfs-tools): ${err.message}`,
              'invalid',
              { cause: err },
            ),
          ),
        );
        child.on('exit', resolve);
      });
      out = readFileSync(log, 'utf8');
      if (code !== 0) throw new ConversionError(`guestfish --listen failed (exit ${code}): ${out.trim()}`, 'transient');
    } finally {
      closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    }
    const pid = /GUESTFISH_PID=(\d+)/.exec(out)?.[1];
    if (!pid) throw new ConversionError(`guestfish --listen printed no GUESTFISH_PID: ${out.trim()}`, 'transient');
    const session = new GuestfishSession(Number(pid), fullEnv, timeoutMs);
    await session.listening();
    return session;
  }

  /**
   * The parent prints the server's PID and exits before the server has made its socket (libguestfs's
   * rc_listen says so: "a small but unavoidable race"); a server at low priority beside busy
   * appliances can take seconds to get there. Asks a setting (no appliance needed) until it answers.
   */
  private async listening(timeoutMs = 60_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      try {
        await run('guestfish', [`--remote=${this.pid}`, '--', 'get-verbose'], { env: this.env, timeout: 10_000 });
        return;
      } catch (err) {
        const gone = !alive(this.pid);
        if (gone || Date.now() > until) {
          this.kill();
          const why = ((err as { stderr?: string }).stderr ?? (err as Error).message).trim();
          throw new ConversionError(
            `guestfish server ${this.pid} ${gone ? 'exited' : `did not listen within ${timeoutMs / 1000} s`}: ${why}`,
            'transient',
          );
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  /** The server's process id (the appliance's QEMU is its child). */
  get serverPid(): number {
    return this.pid;
  }

  /** Runs one command; its output, or an error with guestfish's message. */
  async call(...args: string[]): Promise<string> {
    try {
      const { stdout } = await run('guestfish', [`--remote=${this.pid}`, '--', ...args], {
        env: this.env,
        timeout: this.timeoutMs,
        maxBuffer: 64 * 1024 * 1024,
      });
      return stdout;
    } catch (err) {
      const stderr = ((err as { stderr?: string }).stderr ?? '').trim();
      throw new ConversionError(`guestfish ${args[0]}: ${stderr || (err as Error).message}`, 'invalid', {
        cause: err,
        details: { command: args[0] },
      });
    }
  }

  /** Like call, undefined where the command fails (a file that is not there). */
  async try(...args: string[]): Promise<string | undefined> {
    try {
      return await this.call(...args);
    } catch {
      return undefined;
    }
  }

  /** Lines of a command's output, without empty ones. */
  async lines(...args: string[]): Promise<string[]> {
    return (await this.call(...args)).split('\n').filter((l) => l.length > 0);
  }

  /** Ends the session: writes reach the disks (umount, sync, appliance shut down) before this resolves. */
  async close(): Promise<void> {
    await this.try('umount-all');
    await this.try('shutdown');
    await this.try('exit');
    await waitGone(this.pid, 30_000);
  }

  /** Kills the server and with it the appliance (after a failure, or a cancel). */
  kill(): void {
    try {
      process.kill(this.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitGone(pid: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (!alive(pid)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  process.kill(pid, 'SIGKILL');
}
