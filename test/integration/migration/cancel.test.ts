import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { stringify } from 'yaml';
import {
  cancelMigrationUpdate,
  cancelWaveUpdate,
  migrationStatusQuery,
  rollbackUpdate,
  waveStatusQuery,
} from '../../../src/domain/messages';
import type { migrationWave } from '../../../workflows/migration-wave';
import { labWorkers, useMigrationLabs, type MigrationSuite } from '../../helpers/migration-lab';
import { spawnFerry } from '../../helpers/processes';
import { vcsimTasks } from '../../helpers/vcsim-tasks';
import type { VsphereClient } from '../../../src/vsphere';
import { runningActivityWithTask, until } from '../../helpers/wait';
import { readWaveOutcome } from '../../../lab/wave-result';

// Long enough for the CLI (a fresh Node process) to cancel a vMotion while it runs, on a busy machine with
// the other scenarios running beside it. The cancel ends the vMotion, so the length costs nothing.
const RELOCATE_MS = 90_000;

/** The scale VMs start powered off: these are turned on, so a cancel can be seen to leave them running. */
async function powerOn(vsphere: VsphereClient, names: string[]): Promise<void> {
  const vms = (await vsphere.discover()).inventory.vms;
  for (const name of names) await vsphere.powerOn(vms.find((v) => v.name === name)!.moid);
}

async function startWave(client: Client, taskQueue: string, id: string, names: string[]) {
  return client.workflow.start<typeof migrationWave>('migrationWave', {
    taskQueue,
    workflowId: `${taskQueue}-${id}`,
    args: [{ waveId: `${taskQueue}-${id}`, selection: { names } }],
  });
}

describe('ferry cancel: before the shutdown a VM stops where it is; inside its cutover it waits for a decision', () => {
  jest.setTimeout(600_000);
  // A lab per scenario, started at once, so the scenarios can run at once: the slow vMotions one needs do
  // not slow the others, and no two waves sync the same cluster's SDN at the same moment (ensureSdn is
  // not safe against a concurrent create of the zone). In the first, one vMotion at a time, each taking
  // a while: one VM is mid-vMotion while the other waits for the permit. In the third, a slow
  // ShutdownGuest keeps a cutover inside its shutdown long enough to cancel it there.
  const [slowVmotion, quick, slowShutdown] = useMigrationLabs(
    {
      methodDelay: { RelocateVm: RELOCATE_MS, LockHandoff: 0 },
      limits: { vmotion: 1 },
      migration: { heartbeatTimeout: '3s' },
    },
    { methodDelay: { LockHandoff: 0 }, migration: { heartbeatTimeout: '3s' } },
    { methodDelay: { ShutdownGuest: 6_000, LockHandoff: 0 }, migration: { heartbeatTimeout: '3s' } },
  );

  /** The CLI as a person runs it, configured for a lab and the test's task queue. */
  const ferryFor = (suite: MigrationSuite, taskQueue: string) => {
    const configFile = path.join(suite.lab.stateDir, `${taskQueue}.yaml`);
    writeFileSync(configFile, stringify({ ...suite.lab.document, worker: { taskQueue } }));
    return async (...args: string[]) => {
      const run = spawnFerry(['-c', configFile, ...args], suite.lab.env);
      return { code: await run.exited, output: run.output() };
    };
  };

  // The scenarios are independent (own lab, VMs and task queue each), so they run at once.
  it.concurrent(
    'a wave cancelled with one VM mid-vMotion and one before it: the vCenter task is cancelled, both VMs keep running on VMware, shells kept',
    async () => {
      const suite = slowVmotion;
      const workers = await labWorkers(suite.temporal.nativeConnection, suite.lab.deps);
      const vsphere = suite.lab.deps.vsphere!;
      const names = ['scale-0001', 'scale-0002'];
      await powerOn(vsphere, names);
      await workers.run(async () => {
        const wave = await startWave(suite.temporal.client, workers.taskQueue, 'wave', names);
        const children = await until('both VM workflows', async () => {
          const s = await wave.query(waveStatusQuery);
          return s.vms.length === 2 && s.vms.every((v) => v.state === 'running')
            ? s.vms.map((v) => v.workflowId)
            : undefined;
        });
        const moving = await until('a storage vMotion in flight', () =>
          runningActivityWithTask(suite.temporal.client, children, 'relocateVm', 'task'),
        );
        // The other VM's shell is built: it waits for the vMotion permit.
        await until('both VMs in relocate', async () =>
          (await wave.query(waveStatusQuery)).vms.every((v) => v.stage === 'relocate') ? true : undefined,
        );

        await expect(
          wave.executeUpdate(cancelWaveUpdate, { args: [{ by: 'mallory', reason: 'no' }] }),
        ).rejects.toMatchObject({
          cause: { message: expect.stringContaining('mallory is not an approver') },
        });
        const accepted = await ferryFor(suite, workers.taskQueue)(
          'cancel',
          wave.workflowId,
          '--by',
          'alice',
          '--reason',
          'change freeze',
        );
        expect(accepted).toMatchObject({
          code: 0,
          output: expect.stringContaining(
            `cancel: accepted by ${wave.workflowId}: 0 VM(s) will not start, 2 running VM(s) told to cancel`,
          ),
        });

        const result = await readWaveOutcome(suite.temporal.client, wave);
        expect(result.status.cancellation).toMatchObject({
          by: 'alice',
          reason: 'change freeze',
          removeShells: false,
          via: 'update',
        });
        // The wave's result lists each VM's state.
        expect(result.status.vms.map((v) => [v.name, v.state, v.outcome, v.stage])).toEqual(
          names.map((n) => [n, 'finished', 'cancelled', 'cancelled']),
        );
        const movingVm = result.status.vms.find((v) => v.workflowId === moving)!;
        const waitingVm = result.status.vms.find((v) => v.workflowId !== moving)!;
        expect(movingVm.cancellation).toMatchObject({
          by: 'alice',
          stage: 'relocate',
          effect: 'stops-now',
          left: { shell: 'kept', vmware: { powerState: 'poweredOn' } },
        });
        expect(movingVm.cancellation!.left!.relocation).toMatch(/^task-\d+: error$/);
        // The other was waiting for the vMotion permit: no task was started for it.
        expect(waitingVm.cancellation).toMatchObject({
          stage: 'relocate',
          left: { shell: 'kept', vmware: { powerState: 'poweredOn' } },
        });
        expect(waitingVm.cancellation!.left!.relocation).toBeUndefined();
        expect(result.actions.filter((a) => a.kind === 'relocate')).toEqual([]);

        // vCenter was asked to cancel the running task (vcsim records it as cancelled: error, RequestCanceled).
        const tasks = await vcsimTasks(vsphere, 'RelocateVm');
        expect(tasks.filter((t) => t.entity === movingVm.moid).map((t) => t.state)).toEqual(['error']);
        expect(tasks.filter((t) => t.entity === waitingVm.moid)).toEqual([]);
        // Both VMs still run on VMware; their shells stay on Proxmox.
        const inventory = (await vsphere.discover()).inventory.vms;
        for (const name of names) expect(inventory.find((v) => v.name === name)!.powerState).toBe('poweredOn');
        const pveNames = (await suite.lab.deps.proxmox!.vms.list()).map((vm) => vm.name);
        for (const name of names) expect(pveNames).toContain(name);
      });
    },
  );

  it.concurrent(
    'VMs waiting at the approval gate: one cancelled by `ferry cancel` keeps its shell, one with --remove-shells loses it',
    async () => {
      const suite = quick;
      const workers = await labWorkers(suite.temporal.nativeConnection, suite.lab.deps);
      const names = ['scale-0003', 'scale-0004'];
      const ferry = ferryFor(suite, workers.taskQueue);
      await workers.run(async () => {
        const wave = await startWave(suite.temporal.client, workers.taskQueue, 'approval', names);
        const waiting = await until(
          'both VMs at the approval gate',
          async () => {
            const s = await wave.query(waveStatusQuery);
            return s.vms.length === 2 && s.vms.every((v) => v.stage === 'awaiting-approval') ? s.vms : undefined;
          },
          300_000,
        );
        const workflowOf = (name: string) => waiting.find((v) => v.name === name)!.workflowId;

        const kept = await ferry('cancel', workflowOf('scale-0003'), '--by', 'alice', '--reason', 'not this week');
        expect(kept.output).toContain(
          `cancel: accepted by ${workflowOf('scale-0003')} in stage awaiting-approval: stops where it is`,
        );
        expect(kept.code).toBe(0);
        const refused = await ferry('cancel', workflowOf('scale-0003'), '--by', 'alice', '--reason', 'again');
        expect(refused.code).toBe(1);
        expect(refused.output).toMatch(
          /cancel refused by .*: already cancelled by alice|nothing to cancel: .* has ended/,
        );
        const removed = await ferry(
          'cancel',
          workflowOf('scale-0004'),
          '--by',
          'lab-admin',
          '--reason',
          'retired instead',
          '--remove-shells',
        );
        expect(removed).toMatchObject({ code: 0 });

        const result = await readWaveOutcome(suite.temporal.client, wave);
        const vm = (name: string) => result.status.vms.find((v) => v.name === name)!;
        expect(vm('scale-0003')).toMatchObject({
          outcome: 'cancelled',
          cancellation: { by: 'alice', stage: 'awaiting-approval', left: { shell: 'kept' } },
        });
        expect(vm('scale-0004')).toMatchObject({
          outcome: 'cancelled',
          cancellation: { by: 'lab-admin', removeShells: true, left: { shell: 'removed' } },
        });
        expect(result.actions).toContainEqual({ kind: 'remove-shell', vm: 'scale-0004', vmid: expect.any(Number) });
        const pveNames = (await suite.lab.deps.proxmox!.vms.list()).map((v) => v.name);
        expect(pveNames).toContain('scale-0003');
        expect(pveNames).not.toContain('scale-0004');
        // Where each disk is, as vCenter says after the cancel, is reported.
        expect(vm('scale-0003').cancellation!.left!.vmware!.disks).toEqual([
          { label: 'Hard disk 1', datastore: expect.any(String) },
        ]);
      });
    },
  );

  it.concurrent(
    'a VM cancelled inside its cutover finishes the shutdown, then waits for retry or rollback',
    async () => {
      const suite = slowShutdown;
      const workers = await labWorkers(suite.temporal.nativeConnection, suite.lab.deps);
      const vsphere = suite.lab.deps.vsphere!;
      await powerOn(vsphere, ['scale-0005']);
      await workers.run(async () => {
        const wave = await startWave(suite.temporal.client, workers.taskQueue, 'cutover', ['scale-0005']);
        const [child] = await until(
          'the VM at the approval gate',
          async () => {
            const s = await wave.query(waveStatusQuery);
            return s.vms.length === 1 && s.vms[0]!.stage === 'awaiting-approval' ? s.vms : undefined;
          },
          300_000,
        );
        const vm = suite.temporal.client.workflow.getHandle(child!.workflowId);
        // Approved to start some seconds from now: the cutover waits for that time on a timer. The approval
        // (a fresh CLI process, then a workflow task) must land before it, with other scenarios running beside.
        const at = new Date(Date.now() + 40_000).toISOString();
        const approved = await ferryFor(suite, workers.taskQueue)(
          'approve',
          child!.workflowId,
          '--by',
          'alice',
          '--reason',
          'window 7',
          '--at',
          at,
        );
        expect(approved).toMatchObject({ code: 0, output: expect.stringContaining('approve: accepted') });
        const scheduled = await until('the cutover waiting for its time', async () => {
          const s = await vm.query(migrationStatusQuery);
          return s.stage === 'awaiting-window' ? s : undefined;
        });
        expect(scheduled.schedule).toEqual({ startsAt: Date.parse(at), notBefore: Date.parse(at) });
        await until('the shutdown under way', async () =>
          (await vm.query(migrationStatusQuery)).stage === 'shutdown' ? true : undefined,
        );
        expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(at));

        const accepted = await vm.executeUpdate(cancelMigrationUpdate, {
          args: [{ by: 'lab-admin', reason: 'found a problem' }],
        });
        expect(accepted.cancellation).toMatchObject({ stage: 'shutdown', effect: 'at-safe-point' });
        const waiting = await until('the VM waiting for a decision', async () => {
          const s = await vm.query(migrationStatusQuery);
          return s.stage === 'awaiting-decision' ? s : undefined;
        });
        // Not cut in half: the guest is down on VMware, nothing was imported yet.
        expect(waiting.error).toContain('cancelled by lab-admin (found a problem) during the cutover, after shutdown');
        expect(waiting.imports).toEqual([]);
        expect(waiting.actions.map((a) => a.kind)).toContain('shutdown-guest');
        const off = (await vsphere.discover()).inventory.vms.find((v) => v.name === 'scale-0005')!;
        expect(off.powerState).toBe('poweredOff');

        await vm.executeUpdate(rollbackUpdate, { args: [{ by: 'alice', reason: 'as bob asked' }] });
        const result = await readWaveOutcome(suite.temporal.client, wave);
        expect(result.status.vms.map((v) => [v.name, v.outcome])).toEqual([['scale-0005', 'rolled-back']]);
        expect(result.status.vms[0]!.cancellation).toMatchObject({
          by: 'lab-admin',
          effect: 'at-safe-point',
          safePointAt: expect.any(Number),
        });
        const back = (await vsphere.discover()).inventory.vms.find((v) => v.name === 'scale-0005')!;
        expect(back.powerState).toBe('poweredOn');
      });
    },
  );
});
