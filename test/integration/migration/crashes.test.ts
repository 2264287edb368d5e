import path from 'node:path';
import { approveWaveUpdate, waveStatusQuery } from '../../../src/domain/messages';
import type { migrationWave } from '../../../workflows/migration-wave';
import { startMigrationLab, type MigrationLab } from '../../helpers/migration-lab';
import { connectTestTemporal, uniqueName, type TestTemporal } from '../../helpers/temporal';
import { startWorkerProcess, type WorkerProcess } from '../../helpers/worker-process';
import { vcsimTasks } from '../../helpers/vcsim-tasks';
import { runningActivityWithTask, until } from '../../helpers/wait';
import { readWaveOutcome } from '../../../lab/wave-result';

describe('worker processes killed mid-migration', () => {
  jest.setTimeout(600_000);
  let temporal: TestTemporal;
  let lab: MigrationLab;
  let worker: WorkerProcess | undefined;
  beforeAll(async () => {
    temporal = await connectTestTemporal();
    lab = await startMigrationLab({
      // Long enough to still run when the retry comes (heartbeat timeout + a new worker's start).
      methodDelay: { RelocateVm: 15_000, LockHandoff: 0 },
      sim: { importTaskMs: 15_000 },
      migration: { heartbeatTimeout: '3s' },
    });
  });
  afterAll(async () => {
    await worker?.stop();
    await lab?.stop();
    await temporal?.close();
  });

  it('during relocate, approval wait and import: the wave completes with no duplicate VM, disk or NIC', async () => {
    const taskQueue = uniqueName('crash');
    const config = { ...lab.document, worker: { taskQueue, shutdownGraceTime: '1s' } };
    let generation = 0;
    const freshWorker = async () => {
      generation += 1;
      worker = await startWorkerProcess({
        prebuiltBundle: true,
        name: `w${generation}`,
        config,
        env: lab.env,
        configFile: path.join(lab.stateDir, 'worker.yaml'),
      });
    };
    const crash = async () => {
      await worker!.kill();
      await freshWorker();
    };

    await freshWorker();
    const names = ['scale-0001', 'scale-0002', 'scale-0003'];
    const wave = await temporal.client.workflow.start<typeof migrationWave>('migrationWave', {
      taskQueue,
      workflowId: `${taskQueue}-wave`,
      args: [{ waveId: taskQueue, selection: { names } }],
    });
    const children = await until('the VM workflows', async () => {
      const status = await wave.query(waveStatusQuery);
      return status.vms.length === 3 && status.vms.every((v) => v.state === 'running')
        ? status.vms.map((v) => v.workflowId)
        : undefined;
    });

    // Killed once each running vMotion's task id is in its heartbeat: the retries must wait for those tasks.
    await until('a storage vMotion in flight', () =>
      runningActivityWithTask(temporal.client, children, 'relocateVm', 'task'),
    );
    await crash();

    // A short activity (a read, a permit request) that was in flight when the worker died is retried
    // only after its start-to-close timeout (no heartbeat): allow for that.
    await until(
      'every VM waiting for approval',
      async () => {
        const status = await wave.query(waveStatusQuery);
        return status.vms.every((v) => v.stage === 'awaiting-approval') ? true : undefined;
      },
      300_000,
    );
    await crash();
    await wave.executeUpdate(approveWaveUpdate, { args: [{ by: 'alice', reason: 'crash test' }] });

    await until(
      'a disk import in flight',
      () => runningActivityWithTask(temporal.client, children, 'importDisk', 'upid'),
      300_000,
    );
    await crash();

    const result = await readWaveOutcome(temporal.client, wave);
    expect(result.status.vms.map((v) => [v.name, v.outcome])).toEqual(names.map((n) => [n, 'migrated']));

    const pve = lab.deps.proxmox!;
    const all = await pve.vms.list();
    // The retries after each kill rejoined the running task (its id was in the heartbeat) rather than
    // starting another: one storage vMotion and one import task per VM.
    const relocations = await vcsimTasks(lab.deps.vsphere!, 'RelocateVm');
    const moids = result.status.vms.map((v) => v.moid);
    expect(moids.map((moid) => relocations.filter((t) => t.entity === moid).length)).toEqual(moids.map(() => 1));
    const importTasks = lab.pve.cluster.tasks.history.filter((t) => t.imports > 0);
    const vmids = names.map((name) => all.find((vm) => vm.name === name)!.vmid);
    expect(vmids.map((vmid) => importTasks.filter((t) => t.id === String(vmid)).length)).toEqual(vmids.map(() => 1));
    for (const name of names) {
      const matches = all.filter((vm) => vm.name === name);
      expect(matches).toHaveLength(1);
      const { node, vmid } = matches[0]!;
      const config = (await pve.config.get(node, vmid)).values;
      const disks = Object.keys(config).filter((k) => /^(scsi|sata|ide|virtio)\d+$|^unused\d+$/.test(k));
      expect(disks).toEqual(['scsi0']);
      expect(Object.keys(config).filter((k) => /^net\d+$/.test(k))).toEqual(['net0']);
      const volumes = await pve.storage.content(node, 'local-lvm', { vmid });
      expect(volumes.map((v) => v.volid).sort()).toEqual(
        [
          String(config.scsi0).split(',')[0],
          ...(config.efidisk0 ? [String(config.efidisk0).split(',')[0]] : []),
        ].sort(),
      );
    }
  });
});
