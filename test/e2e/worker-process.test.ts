import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { doctor } from '../../workflows/doctor';
import { spawn } from 'node:child_process';
import { ROOT } from '../helpers/processes';
import { connectTestTemporal, devServerAddress, uniqueName, type TestTemporal } from '../helpers/temporal';
import { startWorkerProcess } from '../helpers/worker-process';

describe('worker.ts as a process', () => {
  jest.setTimeout(180_000);
  let temporal: TestTemporal;
  const dir = mkdtempSync(path.join(tmpdir(), 'ferry-worker-'));
  beforeAll(async () => {
    temporal = await connectTestTemporal();
  });
  afterAll(() => temporal.close());

  it('serves its task queues from ferry.yaml and stops gracefully on SIGTERM', async () => {
    const queue = uniqueName('wp');
    const worker = await startWorkerProcess({
      configFile: path.join(dir, 'ferry.yaml'),
      config: {
        temporal: { address: devServerAddress() },
        worker: { taskQueue: queue, taskQueues: { main: { maxConcurrentActivities: 2 } }, shutdownGraceTime: '5s' },
      },
      env: { TEMPORAL_ADDRESS: devServerAddress() },
    });
    // A config that lists only `main` still gets the coordination queue beside it (waves, semaphores).
    expect(worker.output()).toMatch(new RegExp(`queues ${queue}, ${queue}-coordination$`, 'm'));
    const report = await temporal.client.workflow.execute<typeof doctor>('doctor', {
      taskQueue: queue,
      workflowId: `${queue}-doctor`,
    });
    expect(report.verdicts[0]).toMatchObject({ endpoint: 'temporal', ok: true });
    expect(await worker.stop()).toBe(0);
  });

  it('refuses an invalid configuration with every problem listed, before connecting', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'worker.ts')], {
      cwd: ROOT,
      env: { ...process.env, PROXMOX_HOST: 'pve', PROXMOX_PORT: 'x', FERRY_LOG_LEVEL: 'loud' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(output).toContain('invalid ferry configuration');
    expect(output).toContain('proxmox.port (environment PROXMOX_PORT): expected a whole number, got "x"');
    expect(output).toContain(
      'proxmox.user: required: set it in ferry.yaml or PROXMOX_USER; the proxmox section exists only because PROXMOX_HOST is set',
    );
  });

  it('refuses an argument it does not know instead of ignoring it', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'worker.ts'), '--confg', 'ferry.yaml'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(output).toContain('unknown argument "--confg"');
  });
});
