import { execFile } from 'node:child_process';
import type { SimFixture } from './proxmox';

/**
 * Runs one of the real-client programs (test/real-clients, built by scripts/setup.d/60-real-clients.sh)
 * against a simulator: its settings in the environment, its `step <name> ok` lines and JSON summary
 * read back, and what the simulator itself saw — every request's status and every task's type and
 * exit status — for the test to hold against each other.
 */
export interface RealClientRun {
  code: number | null;
  steps: string[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the summary is checked field by field
  summary: any;
  stderr: string;
  /** Requests the simulator answered with 4xx/5xx (method, path, status). */
  failedRequests: string[];
  /** Tasks the run started: type → exit statuses. */
  tasks: Record<string, string[]>;
}

export async function runRealClient(
  fx: SimFixture,
  command: string[],
  env: Record<string, string>,
): Promise<RealClientRun> {
  const firstRequest = fx.sim.requests.length;
  const firstTask = fx.sim.cluster.tasks.history.length;
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
    (resolve) => {
      execFile(
        command[0]!,
        command.slice(1),
        {
          timeout: 180_000,
          env: {
            PATH: process.env.PATH ?? '/usr/bin:/bin',
            HOME: process.env.HOME ?? '/tmp',
            PVE_URL: fx.sim.url,
            PVE_CA_FILE: fx.sim.caFile,
            PVE_TOKEN_ID: fx.credentials.tokenId,
            PVE_TOKEN_SECRET: fx.credentials.tokenSecret,
            ...env,
          },
        },
        (error, out, err) =>
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout: out, stderr: err }),
      );
    },
  );
  await fx.sim.cluster.tasks.idle();
  const lines = stdout.trim().split('\n');
  const last = lines[lines.length - 1] ?? '';
  const tasks: Record<string, string[]> = {};
  for (const t of fx.sim.cluster.tasks.history.slice(firstTask)) (tasks[t.type] ??= []).push(t.exitstatus ?? 'running');
  return {
    code,
    steps: lines.map((l) => /^step (\S+) ok$/.exec(l)?.[1]).filter((s): s is string => s !== undefined),
    summary: last.startsWith('{') ? JSON.parse(last) : undefined,
    stderr,
    failedRequests: fx.sim.requests
      .slice(firstRequest)
      .filter((r) => (r.status ?? 0) >= 400)
      .map((r) => `${r.method} ${r.path} ${r.status}`),
    tasks,
  };
}
