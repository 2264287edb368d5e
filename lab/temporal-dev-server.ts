import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { searchAttributeCliSpecs } from '../src/domain/search-attributes';
import { freePort } from './free-port';
import { toolPath } from './tools';

export interface DevServerOptions {
  /** gRPC port; a free one when omitted. */
  port?: number;
  /** Web UI port; no UI when omitted. */
  uiPort?: number;
  /** SQLite file for persistence; in memory when omitted. */
  dbFile?: string;
  namespace?: string;
  /** How long to wait for the frontend to answer. */
  startTimeoutMs?: number;
  /** Where the server's output goes (defaults to discarded). */
  logFile?: string;
}

export interface DevServer {
  address: string;
  uiUrl?: string;
  namespace: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts the real Temporal dev server (`temporal server start-dev`) on loopback with ferry's search
 * attributes registered, and waits until its frontend answers.
 */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const port = options.port ?? (await freePort());
  const namespace = options.namespace ?? 'default';
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--namespace', namespace];
  args.push('--log-level', 'warn', '--log-format', 'pretty');
  if (options.uiPort) args.push('--ui-ip', '127.0.0.1', '--ui-port', String(options.uiPort));
  else args.push('--headless');
  if (options.dbFile) {
    mkdirSync(path.dirname(options.dbFile), { recursive: true });
    args.push('--db-filename', options.dbFile);
  }
  for (const spec of searchAttributeCliSpecs()) args.push('--search-attribute', spec);
  // Update-with-start and fairness are used by ferry's clients.
  args.push('--dynamic-config-value', 'frontend.enableExecuteMultiOperation=true');
  args.push('--dynamic-config-value', 'frontend.enableUpdateWorkflowExecution=true');

  let stdio: ['ignore', 'ignore' | number, 'pipe'] = ['ignore', 'ignore', 'pipe'];
  if (options.logFile) {
    mkdirSync(path.dirname(options.logFile), { recursive: true });
    stdio = ['ignore', openSync(options.logFile, 'a'), 'pipe'];
  }
  const child = spawn(toolPath('temporal'), args, { stdio, detached: false });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const address = `127.0.0.1:${port}`;
  const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
  for (;;) {
    const early = await Promise.race([exited, new Promise<'running'>((r) => setTimeout(() => r('running'), 200))]);
    if (early !== 'running') throw new Error(`temporal dev server exited with code ${early}: ${stderr.trim()}`);
    if (await answers(address, namespace)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`temporal dev server did not answer on ${address} in time: ${stderr.trim()}`);
    }
  }

  return {
    address,
    namespace,
    uiUrl: options.uiPort ? `http://127.0.0.1:${options.uiPort}` : undefined,
    process: child,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function answers(address: string, namespace: string): Promise<boolean> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address, connectTimeout: 1000 });
    await connection.workflowService.describeNamespace({ namespace });
    return true;
  } catch {
    return false;
  } finally {
    await connection?.close().catch(() => undefined);
  }
}
