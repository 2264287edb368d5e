import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { peakConcurrency } from '../../lab/proxmox-sim/admin-client';
import { startTemporalServer, type TemporalServer } from '../../lab/temporal-server';
import { approveWaveUpdate, waveStatusQuery } from '../../src/domain/messages';
import type { migrationWave } from '../../workflows/migration-wave';
import { startMigrationLab, type MigrationLab } from '../helpers/migration-lab';
import { uniqueName } from '../helpers/temporal';
import { vcsimTasks } from '../helpers/vcsim-tasks';
import { runningActivityWithTask, until } from '../helpers/wait';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';
import { readWaveOutcome } from '../../lab/wave-result';

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

/**
 * docker-compose.yml's topology, run for real: the Temporal server built from the Go module (not the
 * dev server) on PostgreSQL with SQL visibility and the deployment's dynamic config, three worker
 * processes, and the server killed with SIGKILL in the middle of a wave.
 */
describe('the production topology: Temporal on PostgreSQL, three workers, a server crash', () => {
  jest.setTimeout(300_000);
  let server: TemporalServer;
  let connection: Connection;
  let lab: MigrationLab;
  const workers: WorkerProcess[] = [];
  beforeAll(async () => {
    server = await startTemporalServer();
    connection = await Connection.connect({ address: server.address });
    lab = await startMigrationLab({
      methodDelay: { RelocateVm: 400, LockHandoff: 0 },
      sim: { importTaskMs: 3000 },
      migration: { heartbeatTimeout: '3s' },
      limits: { vmotion: 2, importPerStorage: 2 },
    });
  });
  afterAll(async () => {
    for (const w of workers) await w.stop();
    await lab?.stop();
    await connection?.close();
    await server?.stop();
  });

  it('completes the wave with no duplicate VM or disk and the limits held', async () => {
    const client = new Client({ connection, namespace: server.namespace });
    const taskQueue = uniqueName('prod');
    const config = {
      ...lab.document,
      temporal: { ...(lab.document.temporal as object), address: server.address, namespace: server.namespace },
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
    const starts = ['w1', 'w2', 'w3'].map((name) =>
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
    const wave = await client.workflow.start<typeof migrationWave>('migrationWave', {
      taskQueue,
      workflowId: `${taskQueue}-wave`,
      args: [{ waveId: taskQueue, selection: { folder: '/DC0/vm/scale' } }],
    });
    await until(
      'every VM at the approval gate',
      async () => {
        const status = await wave.query(waveStatusQuery);
        return status.vms.length === 10 && status.vms.every((v) => v.stage === 'awaiting-approval') ? true : undefined;
      },
      180_000,
    );
    // Visibility on PostgreSQL answers ferry's search attributes (what `ferry list` and `ferry status <vm>` ask).
    const listed = await until('the VM workflows in SQL visibility', async () => {
      const found = [];
      for await (const wf of client.workflow.list({ query: `FerryKind = 'migrate' AND WaveId = '${taskQueue}'` }))
        found.push(wf.workflowId);
      return found.length === 10 ? found : undefined;
    });
    await wave.executeUpdate(approveWaveUpdate, { args: [{ by: 'lab-admin', reason: 'production topology test' }] });

    // Killed while imports hold their permits and heartbeat their task ids.
    await until(
      'a disk import in flight',
      () => runningActivityWithTask(client, listed, 'importDisk', 'upid'),
      180_000,
    );
    const migratedBeforeCrash = (await wave.query(waveStatusQuery)).vms.filter((v) => v.outcome === 'migrated').length;
    await server.kill();
    await new Promise((r) => setTimeout(r, 2000));
    await server.restart();

    const result = await readWaveOutcome(client, wave);
    expect(migratedBeforeCrash).toBeLessThan(10);
    expect(result.status.vms).toHaveLength(10);
    expect(result.status.vms.map((v) => v.outcome)).toEqual(result.status.vms.map(() => 'migrated'));

    // No duplicates: one storage vMotion per VM, one import task per VM, one Proxmox VM per name with one disk.
    const relocations = (await vcsimTasks(lab.deps.vsphere!, 'RelocateVm')).filter((t) => t.startMs >= started - 1000);
    const moids = result.status.vms.map((v) => v.moid);
    expect(moids.map((moid) => relocations.filter((t) => t.entity === moid).length)).toEqual(moids.map(() => 1));
    const imports = (await lab.admin.log()).tasks.filter((t) => t.imports > 0);
    const all = await lab.deps.proxmox!.vms.list();
    const names = result.status.vms.map((v) => v.name);
    expect(names.map((name) => all.filter((vm) => vm.name === name).length)).toEqual(names.map(() => 1));
    const vmids = names.map((name) => all.find((vm) => vm.name === name)!.vmid);
    expect(vmids.map((vmid) => imports.filter((t) => t.id === String(vmid)).length)).toEqual(vmids.map(() => 1));

    // The limits held across the crash, though three workers could each run four of either.
    expect(peak(relocations)).toBeLessThanOrEqual(2);
    expect(peakConcurrency(imports, () => true)).toBeLessThanOrEqual(2);
  });
});
