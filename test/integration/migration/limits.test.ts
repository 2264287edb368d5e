import path from 'node:path';
import { peakConcurrency } from '../../../lab/proxmox-sim/admin-client';
import { approveWaveUpdate, waveStatusQuery } from '../../../src/domain/messages';
import type { migrationWave } from '../../../workflows/migration-wave';
import { startMigrationLab, type MigrationLab } from '../../helpers/migration-lab';
import { connectTestTemporal, uniqueName, type TestTemporal } from '../../helpers/temporal';
import { vcsimTasks } from '../../helpers/vcsim-tasks';
import { startWorkerProcess, type WorkerProcess } from '../../helpers/worker-process';
import { readWaveOutcome } from '../../../lab/wave-result';

/** Highest number of [start, end) intervals open at once. */
function peak(intervals: Array<{ startMs: number; endMs?: number }>): number {
  return peakConcurrency(
    intervals.map((i) => ({
      upid: '',
      node: '',
      type: '',
      id: '',
      user: '',
      imports: 1,
      startMs: i.startMs,
      endMs: i.endMs,
    })),
    () => true,
  );
}

describe('global limits with two worker processes', () => {
  jest.setTimeout(300_000);
  let temporal: TestTemporal;
  let lab: MigrationLab;
  const workers: WorkerProcess[] = [];
  beforeAll(async () => {
    temporal = await connectTestTemporal();
    lab = await startMigrationLab({
      methodDelay: { RelocateVm: 400, LockHandoff: 0 },
      sim: { importTaskMs: 1500 },
      migration: { heartbeatTimeout: '5s' },
      limits: { vmotion: 2, importPerStorage: 2 },
    });
  });
  afterAll(async () => {
    for (const w of workers) await w.stop();
    await lab?.stop();
    await temporal?.close();
  });

  it('never runs more vMotions or imports at once than the limits, though each worker could run four', async () => {
    const taskQueue = uniqueName('limits');
    const config = {
      ...lab.document,
      worker: {
        taskQueue,
        shutdownGraceTime: '2s',
        taskQueues: {
          main: { maxConcurrentActivities: 20 },
          vmotion: { maxConcurrentActivities: 4 },
          import: { maxConcurrentActivities: 4 },
          sdn: { maxConcurrentActivities: 1 },
        },
      },
    };
    const starts = ['w1', 'w2'].map((name) =>
      startWorkerProcess({
        prebuiltBundle: true,
        name,
        config,
        env: lab.env,
        configFile: path.join(lab.stateDir, `${name}.yaml`),
      }),
    );
    // Started at once; any that did start are stopped after the test, even if another failed.
    const settled = await Promise.allSettled(starts);
    for (const started of settled) if (started.status === 'fulfilled') workers.push(started.value);
    for (const started of settled) if (started.status === 'rejected') throw started.reason;
    const started = Date.now();
    const wave = await temporal.client.workflow.start<typeof migrationWave>('migrationWave', {
      taskQueue,
      workflowId: `${taskQueue}-wave`,
      args: [{ waveId: taskQueue, selection: { folder: '/DC0/vm/scale' } }],
    });
    // All ten reach the gate, then are approved together: ten imports want to start at once.
    for (let i = 0; ; i++) {
      const status = await wave.query(waveStatusQuery);
      if (status.vms.length === 10 && status.vms.every((v) => v.stage === 'awaiting-approval')) break;
      if (i > 1200) throw new Error(`the VMs did not reach the gate: ${JSON.stringify(status.vms)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await wave.executeUpdate(approveWaveUpdate, { args: [{ by: 'lab-admin', reason: 'limits test' }] });
    const result = await readWaveOutcome(temporal.client, wave);
    expect(result.status.vms.length).toBe(10);
    expect(result.status.vms.every((v) => v.outcome === 'migrated')).toBe(true);

    const relocations = (await vcsimTasks(lab.deps.vsphere!, 'RelocateVm')).filter((t) => t.startMs >= started - 1000);
    expect(relocations).toHaveLength(10);
    expect(peak(relocations)).toBe(2);

    const imports = (await lab.admin.log()).tasks.filter((t) => t.imports > 0);
    expect(imports).toHaveLength(10);
    expect(peakConcurrency(imports, () => true)).toBe(2);
  });
});
