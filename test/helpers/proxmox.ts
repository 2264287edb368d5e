import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { ProxmoxClient, type ProxmoxClientOptions } from '../../src/proxmox';
import { SimulatorAdmin } from '../../lab/proxmox-sim/admin-client';
import type { SimSettings } from '../../lab/proxmox-sim/cluster';
import { sampleCluster, sampleCredentials, type SampleCredentials } from '../../lab/proxmox-sim/sample-cluster';
import { startProxmoxSimulator, type ProxmoxSimulator } from '../../lab/proxmox-sim/server';
import type { Flavour } from '../../lab/proxmox-sim/schema/subset';
import { FerryError } from '../../src/errors';

/** A simulator with the sample cluster in a fresh folder, and a client that trusts its CA. */
export interface SimFixture {
  sim: ProxmoxSimulator;
  credentials: SampleCredentials;
  stateDir: string;
  client(options?: Partial<ProxmoxClientOptions>): ProxmoxClient;
  /** A raw HTTPS request to the simulator (token auth unless headers say otherwise), for wire-level checks. */
  raw(
    method: string,
    apiPath: string,
    options?: { form?: Record<string, string>; json?: unknown; headers?: Record<string, string> },
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire-level answers are checked field by field in the tests
  ): Promise<{ status: number; statusText: string; body: any }>;
  /** The simulator's admin API as the sample cluster's admin token (closed by stop()). */
  admin(): SimulatorAdmin;
  /** The `import` folder of storage `local` on `node`, created: a file put there is `local:import/<file>`. */
  importDir(node?: string): string;
  stop(): Promise<void>;
}

export const FLAVOURS: Flavour[] = ['8.4', '9.1'];

export async function startSim(flavour: Flavour, settings: Partial<SimSettings> = {}): Promise<SimFixture> {
  const stateDir = mkdtempSync(path.join(tmpdir(), `ferry-pve-${flavour}-`));
  const credentials = sampleCredentials();
  const sim = await startProxmoxSimulator({
    ...sampleCluster(stateDir, flavour, credentials),
    settings: { authFailureDelayMs: 50, ...settings },
  });
  const clients: ProxmoxClient[] = [];
  const admins: SimulatorAdmin[] = [];
  const authorization = `PVEAPIToken=${credentials.tokenId}=${credentials.tokenSecret}`;
  return {
    sim,
    credentials,
    stateDir,
    client(options = {}) {
      const client = new ProxmoxClient({
        host: sim.host,
        port: sim.port,
        validateCerts: true,
        caFile: sim.caFile,
        auth: { kind: 'token', tokenId: credentials.tokenId, secret: credentials.tokenSecret },
        taskPollIntervalMs: 20,
        ...options,
      });
      clients.push(client);
      return client;
    },
    async raw(method, apiPath, options = {}) {
      const headers: Record<string, string> = { authorization, ...options.headers };
      let body: string | undefined;
      if (options.form) {
        headers['content-type'] = 'application/x-www-form-urlencoded';
        body = new URLSearchParams(options.form).toString();
      } else if (options.json !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(options.json);
      }
      const dispatcher = new Agent({ connect: { ca: readFileSync(sim.caFile, 'utf8') } });
      try {
        const response = await request(`${sim.url}${apiPath}`, { method: method as 'GET', headers, body, dispatcher });
        const text = await response.body.text();
        return {
          status: response.statusCode,
          statusText: response.statusText,
          body: text ? JSON.parse(text) : undefined,
        };
      } finally {
        await dispatcher.close();
      }
    },
    admin() {
      const admin = new SimulatorAdmin(sim.url, sim.caFile, {
        id: credentials.tokenId,
        secret: credentials.tokenSecret,
      });
      admins.push(admin);
      return admin;
    },
    importDir(node = 'pve1') {
      const dir = path.join(stateDir, 'proxmox', 'storage', 'local', node, 'import');
      mkdirSync(dir, { recursive: true });
      return dir;
    },
    async stop() {
      await Promise.all([...clients, ...admins].map((c) => c.close()));
      await sim.stop();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/** Runs `fn`, expecting it to throw; returns the error for assertions (on its class-specific fields too). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the error's own fields (errors, exitstatus, upid…) are asserted
export async function failure(fn: () => Promise<unknown>): Promise<any> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail, but it succeeded');
}

/**
 * Repeats an operation on retryable FerryErrors, as a Temporal activity retry policy would (small
 * backoff, bounded attempts), and counts the attempts.
 */
export async function retrying<T>(
  fn: () => Promise<T>,
  stats: { attempts: number; retries: number },
  maxAttempts = 40,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    stats.attempts++;
    try {
      return await fn();
    } catch (err) {
      if (!(err instanceof FerryError) || !err.retryable || attempt >= maxAttempts) throw err;
      stats.retries++;
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}
