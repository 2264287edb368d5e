import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { toolPath } from '../tools';
import type { LabCertificates } from './tls';

/** The API version vcsim reports (About.apiVersion); ferry then speaks it in SOAPAction. */
export const VCSIM_API_VERSION = '8.0.3.0';

export interface VcsimOptions {
  certs: LabCertificates;
  username: string;
  password: string;
  /** A saved estate (`govc object.save`) to load; else an empty datacenter DC0 with cluster DC0_C0 and host DC0_H0. */
  load?: string;
  /** `-method-delay`: milliseconds per SOAP method or task name (`RelocateVm`, `ShutdownGuest`). */
  methodDelay?: Record<string, number>;
  /** Where vcsim's own log goes (discarded when unset). */
  logFile?: string;
  startTimeoutMs?: number;
}

export interface Vcsim {
  host: string;
  port: number;
  /** `https://127.0.0.1:PORT/sdk` (no credentials). */
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts govmomi's vcsim on a free loopback port with its own certificate and a fixed user, and waits
 * for the line it prints once it serves (`export GOVC_URL=…`).
 *
 * The password never goes on vcsim's command line (which every local user reads in `ps`): vcsim reads
 * no variable for it, but its `-password` (like `-username`) takes a file whose content is the value
 * (govmomi's session.Secret: a value naming a readable file is replaced by the file's trimmed content).
 * So the password goes into a file only this user can read, in a 0700 folder removed when vcsim stops.
 */
export async function startVcsim(options: VcsimOptions): Promise<Vcsim> {
  const secrets = mkdtempSync(path.join(tmpdir(), 'ferry-vcsim-')); // mode 0700
  const passwordFile = path.join(secrets, 'password');
  writeFileSync(passwordFile, `${options.password}\n`, { mode: 0o600 });
  try {
    return await startWithPasswordFile(options, passwordFile, () => rmSync(secrets, { recursive: true, force: true }));
  } catch (err) {
    rmSync(secrets, { recursive: true, force: true });
    throw err;
  }
}

async function startWithPasswordFile(options: VcsimOptions, passwordFile: string, cleanUp: () => void): Promise<Vcsim> {
  const args = ['-l', '127.0.0.1:0', '-api-version', VCSIM_API_VERSION];
  args.push('-tlscert', options.certs.certFile, '-tlskey', options.certs.keyFile);
  args.push('-username', options.username, '-password', passwordFile);
  if (options.load) args.push('-load', options.load);
  else args.push('-vm', '0', '-pg', '0', '-ds', '0');
  if (options.methodDelay && Object.keys(options.methodDelay).length > 0) {
    args.push(
      '-method-delay',
      Object.entries(options.methodDelay)
        .map(([k, v]) => `${k}:${v}`)
        .join(','),
    );
  }
  let stderrTarget: 'ignore' | number = 'ignore';
  if (options.logFile) {
    mkdirSync(path.dirname(options.logFile), { recursive: true });
    stderrTarget = openSync(options.logFile, 'a');
  }
  const child = spawn(toolPath('vcsim'), args, { stdio: ['ignore', 'pipe', stderrTarget] });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      cleanUp();
      resolve(code);
    }),
  );

  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`vcsim did not start within ${(options.startTimeoutMs ?? 120_000) / 1000}s`));
    }, options.startTimeoutMs ?? 120_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /GOVC_URL=https:\/\/[^@\s]*@127\.0\.0\.1:(\d+)\/sdk/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(
        new Error(`vcsim exited with code ${code} before serving${options.logFile ? `; see ${options.logFile}` : ''}`),
      );
    });
  });
  child.stdout!.resume();

  return {
    host: '127.0.0.1',
    port,
    url: `https://127.0.0.1:${port}/sdk`,
    process: child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
