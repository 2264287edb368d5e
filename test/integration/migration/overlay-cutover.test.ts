import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Agent, request } from 'undici';
import { guestImage } from '../../../lab/guest-image/paths';
import { nfsMigrationDir } from '../../../lab/shared-paths';
import type { WorkflowHandle } from '@temporalio/client';
import { migrationStatusQuery, rollbackUpdate } from '../../../src/domain/messages';
import { coordinationQueue } from '../../../src/domain/task-queues';
import type { MigrationStatus } from '../../../src/domain/migration';
import type { migrationWave } from '../../../workflows/migration-wave';
import { readWaveOutcome } from '../../../lab/wave-result';
import { guestExec } from '../../helpers/guest-exec';
import { useMigrationLab } from '../../helpers/migration-lab';
import { uniqueName } from '../../helpers/temporal';
import { startWorkerProcess, type WorkerProcess } from '../../helpers/worker-process';

/**
 * The overlay cutover with a real guest (mig-app01, the lab image, BIOS): the VM runs on Proxmox at once
 * from a qcow2 overlay of its VMDK on the migration datastore, is verified, and only then its disk moves
 * live to local-lvm (drive-mirror in the simulator's real QEMU, bandwidth-limited so that the move takes
 * long enough to be interrupted twice): once its task is stopped (a failed move), once its worker is
 * killed with SIGKILL. ferry retries the move, never the cutover; the guest keeps running, and what it
 * wrote before the move reads back intact through its agent afterwards.
 */
describe('overlay cutover', () => {
  jest.setTimeout(900_000);
  const suite = useMigrationLab({ migration: { heartbeatTimeout: '10s' } });
  const node = 'pve1';
  const workers: WorkerProcess[] = [];

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.kill().catch(() => undefined)));
  });

  const vmdkChecksums = (vm: string) =>
    execFileSync('sha256sum', [`${vm}.vmdk`, `${vm}-flat.vmdk`], {
      cwd: path.join(nfsMigrationDir(suite.lab.stateDir), vm),
      encoding: 'utf8',
    });

  async function until<T>(
    what: string,
    probe: () => Promise<T | undefined> | T | undefined,
    timeoutMs = 600_000,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  const runningMove = () => suite.lab.pve.cluster.tasks.running('qmmove')[0];
  const apiToken = () => {
    const proxmox = suite.lab.document.proxmox as { user: string; tokenId: string };
    return `PVEAPIToken=${proxmox.user}!${proxmox.tokenId}=${suite.lab.env.PROXMOX_TOKEN_SECRET}`;
  };

  /** Workers serving one overlay wave of `vm` (8 MiB/s per move: a move takes most of a minute, time to interrupt it). */
  function overlayWave(vm: string) {
    const taskQueue = uniqueName('ovl');
    const migration = suite.lab.document.migration as Record<string, unknown>;
    const document = {
      ...suite.lab.document,
      migration: {
        ...migration,
        cutover: { mode: 'overlay', shutdownTimeout: '2m', forcePowerOff: true, startAfter: true, moveBandwidth: 8 },
        verify: {
          probes: [{ tcp: guestImage().manifest.probe.port }],
          agentTimeout: '10m',
          networkTimeout: '30s',
          pollInterval: '500ms',
          onFailure: 'decide',
        },
      },
      worker: { taskQueue, shutdownGraceTime: '1s' },
    };
    const worker = async (name: string) => {
      const started = await startWorkerProcess({
        config: document,
        configFile: path.join(suite.lab.stateDir, `${name}.yaml`),
        env: suite.lab.env,
        name,
        prebuiltBundle: true,
      });
      workers.push(started);
      return started;
    };
    const start = async () => {
      const wave = await suite.temporal.client.workflow.start<typeof migrationWave>('migrationWave', {
        taskQueue: coordinationQueue(taskQueue),
        workflowId: `${taskQueue}-wave`,
        args: [
          { waveId: taskQueue, selection: { names: [vm] }, autoApprove: { by: 'alice', reason: 'overlay cutover' } },
        ],
      });
      const moid = (await suite.lab.deps.vsphere!.discover()).inventory.vms.find((v) => v.name === vm)!.moid;
      return {
        wave,
        vmWorkflow: suite.temporal.client.workflow.getHandle(
          `migrate-${(suite.lab.document.vsphere as { name: string }).name}-${moid}`,
        ),
      };
    };
    return { worker, start };
  }

  /** The VM verified on its overlays, its disks moving: its status then. */
  async function moveStage(vmWorkflow: WorkflowHandle, worker?: WorkerProcess): Promise<MigrationStatus> {
    let last: MigrationStatus | undefined;
    return await until('the move stage', async () => {
      last = (await vmWorkflow.query(migrationStatusQuery).catch(() => undefined)) ?? last;
      if (last?.outcome) throw new Error(`the migration ended before its move: ${last.outcome} ${last.error ?? ''}`);
      return last?.stage === 'move' ? last : undefined;
    }).catch((err: Error) => {
      throw new Error(
        `${err.message}; stage ${last?.stage}, error ${last?.error}, worker output:\n${worker?.output().slice(-3000)}`,
      );
    });
  }

  it('runs the guest from its overlay, verified, then moves its disk live through a failed task and a killed worker, nothing lost', async () => {
    const before = vmdkChecksums('mig-app01');
    const { worker, start } = overlayWave('mig-app01');
    const workerA = await worker('worker-a');
    const { wave, vmWorkflow } = await start();
    // Verified on its overlay: the disks begin to move.
    const moving = await moveStage(vmWorkflow, workerA);
    expect(moving.verification?.state).toBe('verified');
    const vmid = moving.vmid!;
    const config = await suite.lab.deps.proxmox!.config.get(node, vmid);
    expect(config.values.scsi0).toMatch(new RegExp(`^nfs-migration:${vmid}/vm-${vmid}-disk-0\\.qcow2,`));

    // What the guest writes now must be on its disk after the move: written, synced, its checksum kept.
    const qemu = await suite.lab.admin.qemu(vmid);
    if (!qemu.running) throw new Error(`VM ${vmid} runs no QEMU`);
    const { agentSocket } = qemu;
    const written = await guestExec(agentSocket, '/bin/sh', [
      '-c',
      'head -c 4194304 /dev/urandom > /root/before-the-move && sync && sha256sum /root/before-the-move',
    ]);
    expect(written.exitcode).toBe(0);
    const checksum = written.stdout.split(' ')[0]!;

    // A failed move: its task stopped through the API, as a person (or PVE on an error) would end it.
    const first = await until('a running move', runningMove);
    await until('the move under way', () => (first.log.some((l) => /transferred/.test(l)) ? true : undefined));
    await stopTask(suite.lab.pve.url, suite.lab.pve.caFile, apiToken(), node, first.upid);
    await until('the failed move to end', () => (first.endMs !== undefined ? true : undefined));
    expect(first.exitstatus).not.toBe('OK');
    expect((await suite.lab.deps.proxmox!.config.get(node, vmid)).values.scsi0).toMatch(/^nfs-migration:/); // still on its overlay
    // The retry's move, then its worker killed mid-way: another worker takes the activity over and waits for that move.
    const second = await until('the retried move', () =>
      runningMove()?.upid !== first.upid ? runningMove() : undefined,
    );
    await until('the retried move under way', () => (second.log.some((l) => /transferred/.test(l)) ? true : undefined));
    await workerA.kill();
    await worker('worker-b');

    const { status } = await readWaveOutcome(suite.temporal.client, wave);
    expect(status.vms.map((v) => [v.name, v.outcome])).toEqual([['mig-app01', 'migrated']]);
    const result = (await vmWorkflow.result()) as MigrationStatus;
    expect(result.verification?.state).toBe('verified');
    expect(result.actions.map((a) => a.kind)).toEqual([
      'create-vm',
      'set-nic',
      'relocate',
      'await-approval',
      'shutdown-guest',
      'attach-overlay',
      'set-boot-order',
      'start-vm',
      'move-disk',
    ]);
    expect(result.moves).toEqual([
      expect.objectContaining({
        slot: 'scsi0',
        from: `nfs-migration:${vmid}/vm-${vmid}-disk-0.qcow2`,
        storage: 'local-lvm',
        volume: expect.stringMatching(/^local-lvm:vm-\d+-disk-\d+$/),
      }),
    ]);
    expect(result.moves![0]!.attempts).toBeGreaterThanOrEqual(2);
    // The disk is on its storage; nothing refers to the migration datastore; the overlay is gone, the VMDK as it was.
    const after = (await suite.lab.deps.proxmox!.config.get(node, vmid)).values;
    expect(Object.entries(after).filter(([, v]) => String(v).includes('nfs-migration'))).toEqual([]);
    expect(
      existsSync(path.join(nfsMigrationDir(suite.lab.stateDir), 'images', String(vmid), `vm-${vmid}-disk-0.qcow2`)),
    ).toBe(false);
    expect(vmdkChecksums('mig-app01')).toBe(before);
    // The guest ran through it all, and its file reads back from the new disk (the page cache dropped first).
    expect((await suite.lab.deps.proxmox!.agent.runState(node, vmid)).qmpstatus).toBe('running');
    const read = await guestExec(agentSocket, '/bin/sh', [
      '-c',
      'echo 3 > /proc/sys/vm/drop_caches && sha256sum /root/before-the-move',
    ]);
    expect(read.stdout.split(' ')[0]).toBe(checksum);
    const downtime = result.verification!.downtimeSeconds!;
    const move = result.timings.find((t) => t.stage === 'move')!;
    console.log(
      `overlay cutover of mig-app01: downtime ${downtime} s; disk moved live in ${((move.endedAt! - move.startedAt) / 1000).toFixed(1)} s (${result.moves![0]!.attempts} attempts)`,
    );
  });

  it('rolls back while the disk moves: only with the guest writes acknowledged; VMware back on, byte for byte as it was', async () => {
    const before = vmdkChecksums('mig-app02');
    const { worker, start } = overlayWave('mig-app02');
    await worker('worker-c');
    const { vmWorkflow } = await start();
    const moving = await moveStage(vmWorkflow, workers.at(-1));
    const vmid = moving.vmid!;
    const moveTask = await until('its move under way', () =>
      suite.lab.pve.cluster.tasks
        .running('qmmove')
        .find((t) => t.id === String(vmid) && t.log.some((l) => /transferred/.test(l))),
    );
    // The guest has run on Proxmox: a rollback that does not acknowledge losing its writes is refused.
    await expect(
      vmWorkflow.executeUpdate(rollbackUpdate, { args: [{ by: 'alice', reason: 'changed our mind' }] }),
    ).rejects.toMatchObject({
      cause: { message: expect.stringMatching(/discards what the guest wrote since it started on Proxmox/) },
    });
    await vmWorkflow.executeUpdate(rollbackUpdate, {
      args: [{ by: 'alice', reason: 'changed our mind', discardGuestWrites: true }],
    });
    const result = (await vmWorkflow.result()) as MigrationStatus;
    expect(result.outcome).toBe('rolled-back');
    expect(result.decisions).toEqual([
      expect.objectContaining({ decision: 'rollback', by: 'alice', discardedGuestWrites: true }),
    ]);
    // The move did not finish; the Proxmox VM is stopped without the disks it had; no overlay left.
    await until('the cancelled move to end', () => (moveTask.endMs !== undefined ? true : undefined), 60_000);
    expect(moveTask.exitstatus).not.toBe('OK');
    expect((await suite.lab.deps.proxmox!.power.status(node, vmid)).status).toBe('stopped');
    const config = (await suite.lab.deps.proxmox!.config.get(node, vmid)).values;
    expect(Object.keys(config).filter((k) => /^(scsi|unused)\d+$/.test(k))).toEqual([]);
    expect(existsSync(path.join(nfsMigrationDir(suite.lab.stateDir), 'images', String(vmid)))).toBe(false);
    // VMware: on again, as it was before the shutdown, its disk byte for byte as before.
    expect(
      (await suite.lab.deps.vsphere!.discover()).inventory.vms.find((v) => v.name === 'mig-app02')!.powerState,
    ).toBe('poweredOn');
    expect(vmdkChecksums('mig-app02')).toBe(before);
  });
});

/** `DELETE /nodes/{node}/tasks/{upid}` with the lab's token: PVE stops the task. */
async function stopTask(url: string, caFile: string, authorization: string, node: string, upid: string): Promise<void> {
  const dispatcher = new Agent({ connect: { ca: readFileSync(caFile) } });
  try {
    const res = await request(`${url}/api2/json/nodes/${node}/tasks/${encodeURIComponent(upid)}`, {
      method: 'DELETE',
      headers: { authorization },
      dispatcher,
    });
    const body = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`stopping ${upid}: ${res.statusCode} ${body}`);
  } finally {
    await dispatcher.close();
  }
}
