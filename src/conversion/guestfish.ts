import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { ConversionError } from './errors';

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

  static async start(env: Record<string, string>, timeoutMs = 10 * 60_000): Promise<GuestfishSession> {
    const fullEnv = { ...process.env, ...env };
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn('guestfish', ['--listen'], { env: fullEnv, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', (err) => reject(new ConversionError(`cannot start guestfish (Debian package guestfish, from libguestfs-tools): ${err.message}`, 'invalid', { cause: err })));
      child.on('exit', (code) => (code === 0 ? resolve(stdout) : reject(new ConversionError(`guestfish --listen failed (exit ${code}): ${stderr.trim()}`, 'transient'))));
    });
    const pid = /GUESTFISH_PID=(\d+)/.exec(out)?.[1];
    if (!pid) throw new ConversionError(`guestfish --listen printed no GUESTFISH_PID: ${out.trim()}`, 'transient');
    return new GuestfishSession(Number(pid), fullEnv, timeoutMs);
  }

  /** The server's process id (the appliance's QEMU is its child). */
  get serverPid(): number {
    return this.pid;
  }

  /** Runs one command; its output, or an error with guestfish's message. */
  async call(...args: string[]): Promise<string> {
    try {
      const { stdout } = await run('guestfish', [`--remote=${this.pid}`, '--', ...args], { env: this.env, timeout: this.timeoutMs, maxBuffer: 64 * 1024 * 1024 });
      return stdout;
    } catch (err) {
      const stderr = ((err as { stderr?: string }).stderr ?? '').trim();
      throw new ConversionError(`guestfish ${args[0]}: ${stderr || (err as Error).message}`, 'invalid', { cause: err, details: { command: args[0] } });
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

async function waitGone(pid: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  process.kill(pid, 'SIGKILL');
}
