import { spawn } from 'node:child_process';
import path from 'node:path';
import { NAMED_VMS } from '../../lab/vcsim/estate';
import { ROOT } from '../helpers/processes';
import { startTestVcsim, vmwareEnv, type TestVcsim } from '../helpers/vcsim';

/** Enough VMs that the JSON is many times a pipe's 64 KiB buffer. */
const SCALE_VMS = 300;

/** Runs `ferry ARGS | <reader>`: the reader is another process that counts what reaches it through the pipe. */
function ferryThroughPipe(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const ferry = spawn(process.execPath, [path.join(ROOT, 'bin', 'ferry.js'), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // A slow reader, like jq on a big document: ferry must not exit before the pipe is drained.
    const reader = spawn(process.execPath, ['-e', 'setTimeout(() => process.stdin.pipe(process.stdout), 500)'], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    ferry.stdout.pipe(reader.stdin);
    let stdout = '';
    let stderr = '';
    reader.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    ferry.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let code: number | null = null;
    ferry.once('exit', (c) => (code = c));
    ferry.once('error', reject);
    reader.once('close', () => resolve({ code, stdout, stderr }));
  });
}

describe('output through a pipe', () => {
  jest.setTimeout(300_000);
  let sim: TestVcsim;
  let env: Record<string, string>;

  beforeAll(async () => {
    sim = await startTestVcsim({ extraVms: SCALE_VMS });
    env = vmwareEnv(sim);
  });

  afterAll(() => sim?.stop());

  it(`carries the whole JSON of a ${SCALE_VMS}-VM discovery to a slow reader`, async () => {
    const { code, stdout, stderr } = await ferryThroughPipe(['discover', '--json'], env);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout.length).toBeGreaterThan(4 * 65_536);
    const report = JSON.parse(stdout) as { inventory: { vms: unknown[] } };
    expect(report.inventory.vms).toHaveLength(NAMED_VMS.length + SCALE_VMS);
  });

  it('carries the whole table too', async () => {
    const { code, stdout } = await ferryThroughPipe(['discover'], env);
    expect(code).toBe(0);
    expect(stdout.length).toBeGreaterThan(65_536);
    expect(stdout).toContain(`VMs (${NAMED_VMS.length + SCALE_VMS}) in 127.0.0.1`);
    // The last section is printed last: it arrives only if nothing was cut.
    expect(stdout).toMatch(/^Not translated automatically \(7\)$/m);
  });
});
