import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { activityInfo, ApplicationFailure, Context } from '@temporalio/activity';
import { createMigrationActivities } from '../../../activities/migration';
import type { ImportedDisk, LiveImported, MigrationActivities } from '../../../activities/migration-contract';
import { nfsMigrationDir } from '../../../lab/shared-paths';
import { ESTATE } from '../../../lab/vcsim/estate';
import type { MigratedVmSpec } from '../../../src/domain/migration';
import { vmCreateParams } from '../../../src/proxmox';
import { parseDisk } from '../../../src/proxmox/disks';
import { upidSchema } from '../../../src/proxmox/schemas';
import { element, moRef } from '../../../src/vsphere/envelope';
import { vmRef } from '../../../src/vsphere/operations';
import { asMoRef } from '../../../src/vsphere/read';
import { child } from '../../../src/vsphere/xml';
import { startMigrationLab, type MigrationLab } from '../../helpers/migration-lab';
import { connectTestTemporal, createTestWorker, uniqueName, type TestTemporal } from '../../helpers/temporal';
import { vcsimTasks } from '../../helpers/vcsim-tasks';
import type { retriedActivity } from '../../workflow-bundle/retry-probe';

const run = promisify(execFile);
/** Long enough to still run when the second attempt starts (it comes 100 ms after the first fails). */
const TASK_MS = 10_000;

/**
 * The window the heartbeat cannot cover: the worker died after vCenter / PVE created the task but before
 * the attempt's first heartbeat (naming the task) reached Temporal. The first attempt is replaced by
 * what it would have left behind (the task, started with the client; no heartbeat; a failure), the
 * second is the real activity on a real worker, with no task id in its heartbeat details.
 */
describe('a retry whose lost attempt never said which task it started', () => {
  jest.setTimeout(180_000);
  let temporal: TestTemporal;
  let lab: MigrationLab;

  beforeAll(async () => {
    temporal = await connectTestTemporal();
    lab = await startMigrationLab({
      methodDelay: { RelocateVm: TASK_MS, LockHandoff: 0 },
      sim: { importTaskMs: TASK_MS },
    });
  });
  afterAll(async () => {
    await lab?.stop();
    await temporal?.close();
  });

  /**
   * Runs `activity` through a worker whose first attempt only does `lose` (what the lost attempt did
   * before it died) and fails; the second attempt is the real activity. Returns its result, what
   * `stillRunning` said when the second attempt began, and the second attempt's heartbeats.
   */
  async function afterLostAttempt<I, R>(
    activity: 'importDisk' | 'liveImportVm' | 'relocateVm',
    input: I,
    lose: (input: I) => Promise<void>,
    stillRunning: () => Promise<boolean>,
  ) {
    const real = createMigrationActivities(lab.deps) as unknown as Record<string, (input: I) => Promise<R>>;
    const attempts: Array<{ attempt: number; heartbeat: unknown; taskRunning?: boolean }> = [];
    const beats: Array<Record<string, unknown>> = [];
    const taskQueue = uniqueName('rejoin');
    const worker = await createTestWorker(temporal.nativeConnection, {
      taskQueue,
      activities: {
        [activity]: async (arg: I) => {
          const { attempt, heartbeatDetails } = activityInfo();
          if (attempt === 1) {
            attempts.push({ attempt, heartbeat: heartbeatDetails });
            await lose(arg);
            throw ApplicationFailure.retryable('the worker died before its first heartbeat got out (simulated)');
          }
          attempts.push({ attempt, heartbeat: heartbeatDetails, taskRunning: await stillRunning() });
          // A spy on this attempt's heartbeats (what a third attempt would rejoin by), passing them on.
          const context = Context.current();
          const send = context.heartbeat;
          Object.defineProperty(context, 'heartbeat', {
            value: (details: Record<string, unknown>) => (beats.push(details), send(details)),
          });
          return real[activity]!(arg);
        },
      },
    });
    const result = await worker.runUntil(
      temporal.client.workflow.execute<typeof retriedActivity>('retriedActivity', {
        taskQueue,
        workflowId: taskQueue,
        args: [{ activity, input }],
      }),
    );
    return { result: result as R, attempts, beats };
  }

  // The three are independent (own VM, own task queue and worker) and each mostly waits out TASK_MS: run at once.
  it.concurrent(
    'importDisk waits for the import already running on the VM instead of starting a second one',
    async () => {
      const pve = lab.deps.proxmox!;
      const { node, targetStorage: storage } = lab.config.migration!;
      const vmid = 7301;
      const dir = path.join(nfsMigrationDir(lab.stateDir), 'import');
      mkdirSync(dir, { recursive: true });
      await run('qemu-img', ['create', '-q', '-f', 'vmdk', path.join(dir, 'rejoin7301.vmdk'), '16M']);
      const source = 'nfs-migration:import/rejoin7301.vmdk';
      await pve.vms.create({ node, vmid, name: 'rejoin7301', scsihw: 'virtio-scsi-single' });

      let lost: string | undefined;
      const { result, attempts, beats } = await afterLostAttempt<
        Parameters<MigrationActivities['importDisk']>[0],
        ImportedDisk
      >(
        'importDisk',
        { node, vmid, slot: 'scsi0', source, storage },
        async (input) => {
          // What disks.import sends; PVE answers the UPID, which the lost attempt never heartbeated.
          lost = await pve.transport.call(
            'POST',
            `/nodes/${node}/qemu/${vmid}/config`,
            { scsi0: `${input.storage}:0,import-from=${input.source}` },
            upidSchema,
          );
        },
        async () => lab.pve.cluster.tasks.get(lost!)?.endMs === undefined,
      );

      expect(attempts).toEqual([
        { attempt: 1, heartbeat: undefined },
        { attempt: 2, heartbeat: undefined, taskRunning: true },
      ]);
      // One import task on the VM, the lost attempt's, and the activity returned its disk.
      const imports = lab.pve.cluster.tasks.history.filter((t) => t.id === String(vmid) && t.imports > 0);
      expect(imports.map((t) => t.upid)).toEqual([lost]);
      expect(imports[0]!.exitstatus).toBe('OK');
      // It was rejoined by its UPID (found on the VM), which the retry heartbeated at once.
      expect(beats[0]).toMatchObject({ upid: lost, phase: 'import' });
      const disk = parseDisk((await pve.config.get(node, vmid)).values.scsi0!);
      expect(result).toMatchObject({
        slot: 'scsi0',
        volume: disk.volume,
        bytes: 16 * 1024 * 1024,
        alreadyPresent: false,
      });
      // Timed from the rejoined task's start: it ran for most of TASK_MS.
      expect(result.seconds).toBeGreaterThan(1);
    },
  );

  it.concurrent(
    'liveImportVm waits for the live import (its create task) already running instead of starting another',
    async () => {
      const root = lab.deps.proxmoxPrivileged!;
      const { node, targetStorage: storage } = lab.config.migration!;
      const vmid = 7302;
      const name = 'rejoin7302';
      const dir = path.join(nfsMigrationDir(lab.stateDir), name);
      mkdirSync(dir, { recursive: true });
      const source = path.join(dir, `${name}.vmdk`);
      await run('qemu-img', ['create', '-q', '-f', 'vmdk', source, '16M']);
      const spec: MigratedVmSpec = {
        node,
        vmid,
        name,
        machine: 'q35',
        bios: 'seabios',
        sockets: 1,
        cores: 1,
        memory: 512,
        ostype: 'l26',
        scsihw: 'virtio-scsi-single',
        onboot: false,
        tags: ['ferry'],
        importDisks: [{ slot: 'scsi0', storage, source }],
        liveRestore: true,
      };

      let lost: string | undefined;
      const { result, attempts, beats } = await afterLostAttempt<
        Parameters<MigrationActivities['liveImportVm']>[0],
        LiveImported
      >(
        'liveImportVm',
        { spec },
        async () => {
          // The create with live-restore as the activity sends it; the lost attempt never heartbeated its UPID.
          lost = await root.transport.call(
            'POST',
            `/nodes/${node}/qemu`,
            { vmid, ...vmCreateParams(spec) },
            upidSchema,
          );
        },
        async () => lab.pve.cluster.tasks.get(lost!)?.endMs === undefined,
      );

      expect(attempts).toEqual([
        { attempt: 1, heartbeat: undefined },
        { attempt: 2, heartbeat: undefined, taskRunning: true },
      ]);
      const creates = lab.pve.cluster.tasks.history.filter((t) => t.id === String(vmid) && t.type === 'qmcreate');
      expect(creates.map((t) => [t.upid, t.exitstatus])).toEqual([[lost, 'OK']]);
      // Rejoined by its UPID (found on the VM), not only seen as a VM locked for import: the retry
      // heartbeated the task at once, so a third attempt would rejoin it too.
      expect(beats[0]).toMatchObject({ upid: lost, phase: 'live-import' });
      const disk = parseDisk((await root.config.get(node, vmid)).values.scsi0!);
      expect(result).toMatchObject({
        created: true,
        disks: [{ slot: 'scsi0', volume: disk.volume, bytes: 16 * 1024 * 1024 }],
      });
      expect(result.seconds).toBeGreaterThan(1);
    },
  );

  it.concurrent(
    'relocateVm waits for the storage vMotion already running on the VM instead of starting a second one',
    async () => {
      const vsphere = lab.deps.vsphere!;
      const { inventory } = await vsphere.discover();
      const vm = inventory.vms.find(
        (v) => (v.datastores ?? []).length > 0 && !(v.datastores ?? []).includes(ESTATE.migrationDatastore),
      )!;
      expect(vm).toBeDefined();
      const target = (await vsphere.readVmDetail(vm.moid)).hostDatastores.find(
        (d) => d.name === ESTATE.migrationDatastore,
      )!;

      let lost: string | undefined;
      const { result, attempts, beats } = await afterLostAttempt<
        { moid: string; datastore: string },
        { moved: boolean }
      >(
        'relocateVm',
        { moid: vm.moid, datastore: ESTATE.migrationDatastore },
        async () => {
          // What relocateVmStorage sends; vCenter answers the task, which the lost attempt never heartbeated.
          const response = await vsphere.session.call('RelocateVM_Task', vmRef(vm.moid), [
            element('spec', moRef('datastore', { type: 'Datastore', value: target.moid })),
          ]);
          lost = asMoRef(child(response, 'returnval') ?? response, 'RelocateVM_Task returnval').value;
        },
        async () => (await vcsimTasks(vsphere)).some((t) => t.moid === lost && t.endMs === undefined),
      );

      expect(attempts).toEqual([
        { attempt: 1, heartbeat: undefined },
        { attempt: 2, heartbeat: undefined, taskRunning: true },
      ]);
      // One storage vMotion of the VM, the lost attempt's, and the activity returned when it had moved the VM.
      const relocations = (await vcsimTasks(vsphere, 'RelocateVm')).filter((t) => t.entity === vm.moid);
      expect(relocations.map((t) => [t.moid, t.state])).toEqual([[lost, 'success']]);
      expect(beats[0]).toMatchObject({ phase: 'relocate', task: lost });
      expect(result).toEqual({ moved: true });
      expect((await vsphere.readVm(vm.moid)).datastores).toEqual([ESTATE.migrationDatastore]);
    },
  );
});
