import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Client } from '@temporalio/client';
import type { ActivityDeps } from '../../../activities';
import { LIVE_IMPORT_RISK, type MigrationStatus } from '../../../src/domain/migration';
import { nfsMigrationDir } from '../../../lab/shared-paths';
import { vmRef } from '../../../src/vsphere/operations';
import {
  approveWaveUpdate,
  cutoverPlanQuery,
  migrationStatusQuery,
  rejectCutoverUpdate,
  retryCutoverUpdate,
  rollbackSignal,
  rollbackUpdate,
  waveStatusQuery,
} from '../../../src/domain/messages';
import type { migrationWave } from '../../../workflows/migration-wave';
import { labWorkers, useMigrationLab } from '../../helpers/migration-lab';
import { until } from '../../helpers/wait';
import { spawnFerry } from '../../helpers/processes';
import { devServerAddress } from '../../helpers/temporal';
import { readWaveOutcome } from '../../../lab/wave-result';

const run = promisify(execFile);

function withMigration(
  deps: ActivityDeps,
  cutover: Record<string, unknown>,
  verify: Record<string, unknown> = {},
): ActivityDeps {
  const migration = deps.config.migration!;
  return {
    ...deps,
    config: {
      ...deps.config,
      migration: {
        ...migration,
        cutover: { ...migration.cutover, ...cutover },
        verify: { ...migration.verify, ...verify },
      },
    },
  };
}

async function startWave(client: Client, taskQueue: string, names: string[]) {
  return client.workflow.start<typeof migrationWave>('migrationWave', {
    taskQueue,
    workflowId: `${taskQueue}-wave`,
    args: [{ waveId: taskQueue, selection: { names } }],
  });
}

describe('people decide: approve some, reject one, roll back or retry after a failure past the shutdown', () => {
  jest.setTimeout(600_000);
  const suite = useMigrationLab({ migration: { heartbeatTimeout: '5s' } });

  it('follows every decision, and VMware stays untouched where the cutover did not happen', async () => {
    const workers = await labWorkers(suite.temporal.nativeConnection, suite.lab.deps);
    const names = ['mig-web01', 'mig-db01', 'scale-0001', 'scale-0002'];
    const vsphere = suite.lab.deps.vsphere!;
    const pve = suite.lab.deps.proxmox!;
    const before = new Map((await vsphere.discover()).inventory.vms.map((v) => [v.name, v.powerState]));
    await workers.run(async () => {
      const wave = await startWave(suite.temporal.client, workers.taskQueue, names);
      const waiting = await until('every VM at the approval gate', async () => {
        const s = await wave.query(waveStatusQuery);
        return s.vms.length === 4 && s.vms.every((v) => v.stage === 'awaiting-approval') ? s : undefined;
      });
      const child = (name: string) =>
        suite.temporal.client.workflow.getHandle(waiting.vms.find((v) => v.name === name)!.workflowId);

      // What the cutover will do, while it waits.
      const plan = (await child('mig-web01').query(cutoverPlanQuery))!;
      expect(plan.disks).toEqual([
        { slot: 'scsi0', disk: 'Hard disk 1', sizeBytes: 20 * 2 ** 30 },
        { slot: 'scsi1', disk: 'Hard disk 2', sizeBytes: 50 * 2 ** 30 },
      ]);
      expect(plan.nics.map((n) => n.vnet)).toEqual(['v100', 'v200', 'v100']);
      expect(plan).toMatchObject({ mode: 'import', totalBytes: 70 * 2 ** 30, throughput: { measured: false } });
      expect(plan.expectedDowntimeSeconds).toBeGreaterThan(60);

      // scale-0001: rejected by a person; its workflow ends, VMware is left as it was.
      await expect(
        child('scale-0001').executeUpdate(rejectCutoverUpdate, { args: [{ by: 'mallory', reason: 'no' }] }),
      ).rejects.toMatchObject({
        cause: { message: expect.stringContaining('mallory is not an approver') },
      });
      // The refusal leaves a trace: in the status, and in the history as a failed update.
      expect((await child('scale-0001').query(migrationStatusQuery)).ignored).toEqual([
        { message: 'reject by mallory (update)', reason: expect.stringContaining('mallory is not an approver') },
      ]);
      const refusedInHistory = ((await child('scale-0001').fetchHistory()).events ?? []).filter(
        (e) => e.workflowExecutionUpdateCompletedEventAttributes?.outcome?.failure,
      );
      expect(
        refusedInHistory.map((e) => e.workflowExecutionUpdateCompletedEventAttributes!.outcome!.failure!.message),
      ).toEqual([expect.stringContaining('mallory is not an approver')]);
      await child('scale-0001').executeUpdate(rejectCutoverUpdate, {
        args: [{ by: 'alice', reason: 'keep it on VMware' }],
      });

      // The second disks of web01 and db01 vanish from the NFS export: their imports will fail after the shutdown.
      const second = (vm: string) => path.join(nfsMigrationDir(suite.lab.stateDir), vm, `${vm}_1.vmdk`);
      for (const vm of ['mig-web01', 'mig-db01']) copyFileSync(second(vm), `${second(vm)}.kept`);
      for (const vm of ['mig-web01', 'mig-db01']) rmSync(second(vm));

      await wave.executeUpdate(approveWaveUpdate, {
        args: [{ by: 'alice', reason: 'window 7', vms: ['mig-web01', 'mig-db01', 'scale-0002'] }],
      });
      for (const vm of ['mig-web01', 'mig-db01']) {
        const status = await until(`${vm} waiting for a decision`, async () => {
          const s = await child(vm).query(migrationStatusQuery);
          return s.stage === 'awaiting-decision' ? s : undefined;
        });
        expect(status.error).toMatch(/_1\.vmdk/);
        expect(status.imports.map((i) => i.slot)).toEqual(['scsi0']);
      }
      // Nothing to roll back where nothing failed.
      await expect(
        child('scale-0002').executeUpdate(rollbackUpdate, { args: [{ by: 'alice', reason: 'x' }] }),
      ).rejects.toBeDefined();

      // web01: roll back. db01: the file is back; retry.
      await child('mig-web01').executeUpdate(rollbackUpdate, { args: [{ by: 'alice', reason: 'storage trouble' }] });
      copyFileSync(`${second('mig-db01')}.kept`, second('mig-db01'));
      await child('mig-db01').executeUpdate(retryCutoverUpdate, { args: [{ by: 'alice', reason: 'file restored' }] });

      const result = await readWaveOutcome(suite.temporal.client, wave);
      const outcome = Object.fromEntries(result.status.vms.map((v) => [v.name, v.outcome]));
      expect(outcome).toEqual({
        'mig-web01': 'rolled-back',
        'mig-db01': 'migrated',
        'scale-0001': 'rejected',
        'scale-0002': 'migrated',
      });

      const vms = (await vsphere.discover()).inventory.vms;
      const power = (name: string) => vms.find((v) => v.name === name)!.powerState;
      expect(power('mig-web01')).toBe('poweredOn'); // rolled back: VMware runs it again
      expect(power('scale-0001')).toBe(before.get('scale-0001')); // rejected: never shut down or touched
      expect(power('mig-db01')).toBe('poweredOff');
      // Imported and left stopped (no startAfter): nothing is claimed about its guest.
      expect(((await child('mig-db01').result()) as MigrationStatus).verification).toEqual({
        state: 'not-verified-left-stopped',
        checks: [],
      });
      // Rollback removed only what it imported; the shell stays for another try, stopped.
      const web01 = (await pve.vms.findByName('mig-web01'))[0]!;
      const config = (await pve.config.get(web01.node, web01.vmid)).values;
      expect(Object.keys(config).filter((k) => /^(scsi|unused)\d+$/.test(k))).toEqual([]);
      expect((await pve.storage.content(web01.node, 'local-lvm', { vmid: web01.vmid })).map((v) => v.volid)).toEqual([
        String(config.efidisk0).split(',')[0],
      ]);
      expect(web01.status).toBe('stopped');
      // VMware's own files were never touched.
      expect(existsSync(path.join(nfsMigrationDir(suite.lab.stateDir), 'mig-web01', 'mig-web01.vmdk'))).toBe(true);
      const decisions = (result.status.vms.find((v) => v.name === 'mig-web01') &&
        ((await child('mig-web01').result()) as MigrationStatus))!.decisions;
      expect(decisions).toEqual([
        expect.objectContaining({ decision: 'rollback', by: 'alice', reason: 'storage trouble', via: 'update' }),
      ]);
    });
  });

  it('live-import: the shell is replaced by a VM that runs at once while its disks stream in; VMware’s file is kept', async () => {
    // The scale VMs' disks are patterned blanks, no guest: nothing could prove one up, so verification is off and claims nothing.
    const workers = await labWorkers(
      suite.temporal.nativeConnection,
      withMigration(suite.lab.deps, { mode: 'live-import' }, { enabled: false }),
    );
    await workers.run(async () => {
      const wave = await suite.temporal.client.workflow.start<typeof migrationWave>('migrationWave', {
        taskQueue: workers.taskQueue,
        workflowId: `${workers.taskQueue}-wave`,
        args: [
          {
            waveId: workers.taskQueue,
            selection: { names: ['scale-0003'] },
            autoApprove: { by: 'alice', reason: 'live import' },
          },
        ],
      });
      const result = await readWaveOutcome(suite.temporal.client, wave);
      expect(result.status.vms[0]!.outcome).toBe('migrated');
      expect(result.actions.filter((a) => 'vm' in a && a.vm === 'scale-0003').map((a) => a.kind)).toEqual([
        // (scale VMs are powered off in the estate: nothing to shut down)
        'create-vm',
        'set-nic',
        'relocate',
        'await-approval',
        'live-import',
      ]);
      const child = suite.temporal.client.workflow.getHandle(result.status.vms[0]!.workflowId);
      const plan = (await child.query(cutoverPlanQuery))!;
      expect(plan).toMatchObject({ mode: 'live-import', expectedDowntimeSeconds: 120 }); // shutdown + one boot
      const pve = suite.lab.deps.proxmox!;
      // By VMID on the node: /cluster/resources (findByName) lags behind the fresh create.
      const finished = (await child.result()) as MigrationStatus;
      expect(finished.verification).toEqual({ state: 'not-verified-disabled', checks: [] });
      const vm = { node: suite.lab.deps.config.migration!.node, vmid: finished.vmid! };
      expect((await pve.power.status(vm.node, vm.vmid)).status).toBe('running');
      const config = (await pve.config.get(vm.node, vm.vmid)).values;
      expect(config.lock).toBeUndefined();
      expect(String(config.scsi0)).toMatch(/^local-lvm:/);
      expect(config.boot).toBe('order=scsi0;net0');
      expect(config.agent).toBe('enabled=1');
      const source = (await suite.lab.deps.vsphere!.discover()).inventory.vms.find((v) => v.name === 'scale-0003')!;
      source.nics.forEach((nic, i) =>
        expect(String(config[`net${i}`])).toContain(`=${nic.macAddress.toUpperCase()},bridge=v`),
      );
      // One create did it all, as root (import-from by path), and it was the import.
      const creates = suite.lab.pve.cluster.tasks.history.filter(
        (t) => t.type === 'qmcreate' && t.id === String(vm.vmid),
      );
      expect(creates.map((t) => [t.user, t.imports, t.exitstatus])).toEqual([
        [expect.any(String), 0, 'OK'], // the shell, before the approval
        ['root@pam', 1, 'OK'],
      ]);
      const vmdk = path.join(nfsMigrationDir(suite.lab.stateDir), 'scale-0003', 'scale-0003.vmdk');
      expect(existsSync(vmdk)).toBe(true);
      const target = suite.lab.pve.cluster.storages.resolve(String(config.scsi0).split(',')[0]!, vm.node).file;
      expect((await run('qemu-img', ['compare', vmdk, target])).stdout).toContain('Images are identical');
    });
  });

  it('live-import that fails after the VM started: it stops and waits; rollback destroys the VM this workflow made; VMware, off before, stays off', async () => {
    const admin = suite.lab.admin;
    const before = await admin.setSettings({});
    // A slow copy, so the source can vanish while the VM already runs from it.
    await admin.setSettings({ importTaskMs: 3_000 });
    const workers = await labWorkers(
      suite.temporal.nativeConnection,
      withMigration(suite.lab.deps, { mode: 'live-import' }),
    );
    const vmdk = path.join(nfsMigrationDir(suite.lab.stateDir), 'scale-0005', 'scale-0005.vmdk');
    copyFileSync(vmdk, `${vmdk}.kept`);
    const pve = suite.lab.deps.proxmox!;
    const node = suite.lab.deps.config.migration!.node;
    try {
      await workers.run(async () => {
        const wave = await suite.temporal.client.workflow.start<typeof migrationWave>('migrationWave', {
          taskQueue: workers.taskQueue,
          workflowId: `${workers.taskQueue}-wave`,
          args: [
            {
              waveId: workers.taskQueue,
              selection: { names: ['scale-0005'] },
              autoApprove: { by: 'alice', reason: 'live import' },
            },
          ],
        });
        const workflowId = await until(
          'the VM workflow',
          async () => (await wave.query(waveStatusQuery)).vms[0]?.workflowId,
        );
        const child = suite.temporal.client.workflow.getHandle(workflowId);
        const vmid = await until('the VMID', async () => (await child.query(migrationStatusQuery)).vmid);
        await until('the VM running from its live import', async () => {
          const status = await pve.power.status(node, vmid).catch(() => undefined);
          return status?.status === 'running' && status.lock === 'import' ? true : undefined;
        });
        rmSync(vmdk);
        const waiting = await until('a decision awaited', async () => {
          const s = await child.query(migrationStatusQuery);
          return s.stage === 'awaiting-decision' ? s : undefined;
        });
        expect(waiting.error).toMatch(/live import of VM \d+ failed after the VM had started/);
        expect(await pve.power.status(node, vmid)).toMatchObject({ status: 'stopped', lock: 'import' });

        // The riskiest decision says so: the plan warned before the approval, and a retry or rollback
        // that does not acknowledge losing the guest's writes is refused (update) or ignored (signal).
        expect((await child.query(cutoverPlanQuery))!.warnings).toContain(LIVE_IMPORT_RISK);
        for (const update of [rollbackUpdate, retryCutoverUpdate]) {
          await expect(
            child.executeUpdate(update, { args: [{ by: 'alice', reason: 'source lost' }] }),
          ).rejects.toMatchObject({
            cause: { message: expect.stringContaining('--discard-guest-writes') },
          });
        }
        await child.signal(rollbackSignal, { by: 'alice', reason: 'by signal, unacknowledged' });
        const stillWaiting = await until('the signal recorded as ignored', async () => {
          const s = await child.query(migrationStatusQuery);
          return s.ignored.some((i) => i.message.endsWith('(signal)')) ? s : undefined;
        });
        expect(stillWaiting.stage).toBe('awaiting-decision');
        expect(stillWaiting.ignored).toEqual([
          { message: 'rollback by alice (update)', reason: expect.stringContaining('--discard-guest-writes') },
          { message: 'retry by alice (update)', reason: expect.stringContaining('--discard-guest-writes') },
          { message: 'rollback by alice (signal)', reason: expect.stringContaining('discardGuestWrites: true') },
        ]);
        // As a person types it: refused without the flag (nothing moves), accepted with it.
        const ferry = async (...args: string[]) => {
          const cli = spawnFerry(args, { FERRY_CONFIG: '', TEMPORAL_ADDRESS: devServerAddress() });
          return { code: await cli.exited, output: cli.output() };
        };
        const refused = await ferry('rollback', workflowId, '--by', 'alice', '--reason', 'source lost');
        expect(refused.output).toContain(
          `rollback refused by ${workflowId}: a rollback after a failed live import discards what the guest wrote`,
        );
        expect(refused.output).toContain('--discard-guest-writes');
        expect(refused.code).toBe(1);
        expect((await child.query(migrationStatusQuery)).stage).toBe('awaiting-decision');
        const accepted = await ferry(
          'rollback',
          workflowId,
          '--by',
          'alice',
          '--reason',
          'source lost',
          '--discard-guest-writes',
        );
        expect(accepted.output).toContain(`rollback: accepted by ${workflowId}`);
        expect(accepted.code).toBe(0);
        const result = (await child.result()) as MigrationStatus;
        expect(result.outcome).toBe('rolled-back');
        expect(result.decisions).toEqual([
          expect.objectContaining({ decision: 'rollback', by: 'alice', via: 'update', discardedGuestWrites: true }),
        ]);
        await expect(pve.config.get(node, vmid)).rejects.toMatchObject({ category: 'not-found' });
        expect(await pve.storage.content(node, 'local-lvm', { vmid })).toEqual([]);
        // scale-0005 was powered off before the wave: a rollback restores that, it does not power it on.
        expect(result.vmwarePowerState).toBe('poweredOff');
        const vm = (await suite.lab.deps.vsphere!.discover()).inventory.vms.find((v) => v.name === 'scale-0005')!;
        expect(vm.powerState).toBe('poweredOff');
      });
    } finally {
      copyFileSync(`${vmdk}.kept`, vmdk);
      await admin.setSettings({ importTaskMs: before.importTaskMs });
    }
  });

  it('a suspended VM is refused at cutover, forcePowerOff or not: never powered off, VMware untouched', async () => {
    const vsphere = suite.lab.deps.vsphere!;
    const moid = (await vsphere.discover()).inventory.vms.find((v) => v.name === 'scale-0006')!.moid;
    await vsphere.powerOn(moid);
    await vsphere.session.call('SuspendVM_Task', vmRef(moid));
    await until('scale-0006 suspended', async () =>
      (await vsphere.readVm(moid)).powerState === 'suspended' ? true : undefined,
    );
    const workers = await labWorkers(
      suite.temporal.nativeConnection,
      withMigration(suite.lab.deps, { forcePowerOff: true }),
    );
    await workers.run(async () => {
      const wave = await suite.temporal.client.workflow.start<typeof migrationWave>('migrationWave', {
        taskQueue: workers.taskQueue,
        workflowId: `${workers.taskQueue}-wave`,
        args: [{ waveId: workers.taskQueue, selection: { names: ['scale-0006'] } }],
      });
      const workflowId = await until('the VM at the approval gate', async () => {
        const vm = (await wave.query(waveStatusQuery)).vms[0];
        return vm?.stage === 'awaiting-approval' ? vm.workflowId : undefined;
      });
      const child = suite.temporal.client.workflow.getHandle(workflowId);
      // The approver is warned first.
      expect((await child.query(cutoverPlanQuery))!.warnings).toEqual([
        expect.stringMatching(
          /scale-0006 is suspended: the cutover will be refused \(.*resume it or power it off first/,
        ),
      ]);
      await wave.executeUpdate(approveWaveUpdate, { args: [{ by: 'alice', reason: 'suspended test' }] });
      const result = (await child.result()) as MigrationStatus;
      expect(result.outcome).toBe('refused');
      expect(result.refusals).toEqual([
        expect.objectContaining({
          code: 'vm-suspended',
          reason: expect.stringContaining('resume it or power it off first'),
        }),
      ]);
      expect(result.actions.map((a) => a.kind)).toEqual([
        'create-vm',
        'set-nic',
        'relocate',
        'await-approval',
        'refuse',
      ]);
      expect((await vsphere.readVm(moid)).powerState).toBe('suspended');
    });
  });

  it('verify-guest: a started VM whose guest does not answer is not verified, and with onFailure rollback ferry rolls back by itself', async () => {
    // scale-0007 runs on VMware; its disk is a patterned blank, so no guest agent will ever answer.
    const vsphere = suite.lab.deps.vsphere!;
    const moid = (await vsphere.discover()).inventory.vms.find((v) => v.name === 'scale-0007')!.moid;
    await vsphere.powerOn(moid);
    const deps = withMigration(
      suite.lab.deps,
      { mode: 'live-import' },
      { agentTimeout: '6s', pollInterval: '1s', onFailure: 'rollback' },
    );
    const workers = await labWorkers(suite.temporal.nativeConnection, deps);
    const pve = suite.lab.deps.proxmox!;
    const node = suite.lab.deps.config.migration!.node;
    await workers.run(async () => {
      const wave = await suite.temporal.client.workflow.start<typeof migrationWave>('migrationWave', {
        taskQueue: workers.taskQueue,
        workflowId: `${workers.taskQueue}-wave`,
        args: [
          {
            waveId: workers.taskQueue,
            selection: { names: ['scale-0007'] },
            autoApprove: { by: 'alice', reason: 'verify' },
          },
        ],
      });
      const waveResult = await readWaveOutcome(suite.temporal.client, wave);
      const child = suite.temporal.client.workflow.getHandle(waveResult.status.vms[0]!.workflowId);
      const result = (await child.result()) as MigrationStatus;
      expect(result.outcome).toBe('rolled-back');
      expect(result.vmwarePowerState).toBe('poweredOn');
      expect(result.verification).toMatchObject({ state: 'failed' });
      const checks = result.verification!.checks.map((c) => [c.check, c.result]);
      expect(checks).toEqual([
        ['qemu-running', 'passed'],
        ['agent-ping', 'failed'],
      ]);
      expect(result.error).toMatch(/scale-0007 \(VM \d+\) is not verified: agent-ping: /);
      // ferry's own decision, recorded as such; nobody was asked.
      expect(result.decisions).toEqual([
        expect.objectContaining({ decision: 'rollback', by: 'ferry', via: 'setting', discardedGuestWrites: true }),
      ]);
      expect(result.timings.map((t) => t.stage)).not.toContain('awaiting-decision');
      expect(waveResult.status.vms[0]).toMatchObject({ outcome: 'rolled-back', verification: { state: 'failed' } });
      // Both sides: the VM live import made is gone from Proxmox, the VMware VM runs again.
      await expect(pve.config.get(node, result.vmid!)).rejects.toMatchObject({ category: 'not-found' });
      expect((await vsphere.readVm(moid)).powerState).toBe('poweredOn');
    });
  });

  it('ends with approval-expired when nobody decides before the deadline', async () => {
    const workers = await labWorkers(
      suite.temporal.nativeConnection,
      withMigration(suite.lab.deps, { approvalDeadline: '2s' }),
    );
    const before = (await suite.lab.deps.vsphere!.discover()).inventory.vms.find(
      (v) => v.name === 'scale-0004',
    )!.powerState;
    await workers.run(async () => {
      const result = await readWaveOutcome(
        suite.temporal.client,
        await startWave(suite.temporal.client, workers.taskQueue, ['scale-0004']),
      );
      expect(result.status.vms[0]!.outcome).toBe('approval-expired');
      const vm = (await suite.lab.deps.vsphere!.discover()).inventory.vms.find((v) => v.name === 'scale-0004')!;
      expect(vm.powerState).toBe(before);
    });
  });
});

describe('a long wave', () => {
  jest.setTimeout(300_000);
  const suite = useMigrationLab();

  it('continues as new while its VMs run on, and still hears from every one of them', async () => {
    const workers = await labWorkers(suite.temporal.nativeConnection, suite.lab.deps);
    const names = ['scale-0005', 'scale-0006', 'scale-0007', 'scale-0008', 'scale-0009'];
    await workers.run(async () => {
      const wave = await suite.temporal.client.workflow.start<typeof migrationWave>('migrationWave', {
        taskQueue: workers.taskQueue,
        workflowId: `${workers.taskQueue}-wave`,
        args: [
          {
            waveId: workers.taskQueue,
            selection: { names },
            maxConcurrent: 2,
            continueAsNewAfter: 2,
            autoApprove: { by: 'alice', reason: 'long wave' },
          },
        ],
      });
      const result = await readWaveOutcome(
        suite.temporal.client,
        suite.temporal.client.workflow.getHandle<typeof migrationWave>(wave.workflowId),
      );
      expect(result.status.vms.map((v) => [v.name, v.outcome])).toEqual(names.map((n) => [n, 'migrated']));
      expect(result.actions.filter((a) => a.kind === 'import-disk')).toHaveLength(5);
      const runs: string[] = [];
      for await (const wf of suite.temporal.client.workflow.list({ query: `WorkflowId = '${wave.workflowId}'` }))
        runs.push(wf.runId);
      expect(runs.length).toBeGreaterThanOrEqual(3);
    });
  });
});
