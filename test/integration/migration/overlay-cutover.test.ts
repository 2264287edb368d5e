import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Agent, request } from 'undici';
import { guestImage } from '../../../lab/guest-image/paths';
import { nfsMigrationDir } from '../../../lab/shared-paths';
import { migrationStatusQuery } from '../../../src/domain/messages';
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

  const vmdkChecksums = () => {
    const dir = path.join(nfsMigrationDir(suite.lab.stateDir), 'mig-app01');
    return execFileSync('sha256sum', ['mig-app01.vmdk', 'mig-app01-flat.vmdk'], { cwd: dir, encoding: 'utf8' });
  };

  async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 600_000): Promise<T> {
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

  it('runs the guest from its overlay, verified, then moves its disk live through a failed task and a killed worker, nothing lost', async () => {
    const before = vmdkChecksums();
    const taskQueue = uniqueName('ovl');
    const migration = suite.lab.document.migration as Record<string, unknown>;
    const document = {
      ...suite.lab.document,
      migration: {
        ...migration,
        // 8 MiB/s over the lab guest's 384 MiB: a move takes most of a minute, time to interrupt it.
        cutover: { mode: 'overlay', shutdownTimeout: '2m', forcePowerOff: true, startAfter: true, moveBandwidth: 8 },
        verify: { probes: [{ tcp: guestImage().manifest.probe.port }], agentTimeout: '10m', networkTimeout: '30s', pollInterval: '500ms', onFailure: 'decide' },
      },
      worker: { taskQueue, shutdownGraceTime: '1s' },
    };
    const worker = (name: string) => startWorkerProcess({ config: document, configFile: path.join(suite.lab.stateDir, `${name}.yaml`), env: suite.lab.env, name, prebuiltBundle: true });
    workers.push(await worker('worker-a'));
    const wave = await suite.temporal.client.workflow.start<typeof migrationWave>('migrationWave', {
      taskQueue: coordinationQueue(taskQueue),
      workflowId: `${taskQueue}-wave`,
      args: [{ waveId: taskQueue, selection: { names: ['mig-app01'] }, autoApprove: { by: 'alice', reason: 'overlay cutover' } }],
    });
    const vmWorkflow = suite.temporal.client.workflow.getHandle(`migrate-${(suite.lab.document.vsphere as { name: string }).name}-${(await suite.lab.deps.vsphere!.discover()).inventory.vms.find((v) => v.name === 'mig-app01')!.moid}`);
    // Verified on its overlay: the disks begin to move.
    let last: MigrationStatus | undefined;
    const moving = await until('the move stage', async () => {
      last = (await vmWorkflow.query(migrationStatusQuery).catch(() => undefined)) ?? last;
      if (last?.outcome) throw new Error(`the migration ended before its move: ${last.outcome} ${last.error ?? ''}`);
      return last?.stage === 'move' ? last : undefined;
    }).catch((err: Error) => {
      throw new Error(`${err.message}; stage ${last?.stage}, error ${last?.error}, worker output:\n${workers[0]?.output().slice(-3000)}`);
    });
    expect(moving.verification?.state).toBe('verified');
    const vmid = moving.vmid!;
    const config = await suite.lab.deps.proxmox!.config.get(node, vmid);
    expect(config.values.scsi0).toMatch(new RegExp(`^nfs-migration:${vmid}/vm-${vmid}-disk-0\\.qcow2,`));

    // What the guest writes now must be on its disk after the move: written, synced, its checksum kept.
    const qemu = await suite.lab.admin.qemu(vmid);
    if (!qemu.running) throw new Error(`VM ${vmid} runs no QEMU`);
    const { agentSocket } = qemu;
    const written = await guestExec(agentSocket, '/bin/sh', ['-c', 'head -c 4194304 /dev/urandom > /root/before-the-move && sync && sha256sum /root/before-the-move']);
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
    const second = await until('the retried move', () => runningMove()?.upid !== first.upid ? runningMove() : undefined);
    await until('the retried move under way', () => (second.log.some((l) => /transferred/.test(l)) ? true : undefined));
    await workers[0]!.kill();
    workers.push(await worker('worker-b'));

    const { status } = await readWaveOutcome(suite.temporal.client, wave);
    expect(status.vms.map((v) => [v.name, v.outcome])).toEqual([['mig-app01', 'migrated']]);
    const result = (await vmWorkflow.result()) as MigrationStatus;
    expect(result.verification?.state).toBe('verified');
    expect(result.actions.map((a) => a.kind)).toEqual(['create-vm', 'set-nic', 'relocate', 'await-approval', 'shutdown-guest', 'attach-overlay', 'set-boot-order', 'start-vm', 'move-disk']);
    expect(result.moves).toEqual([expect.objectContaining({ slot: 'scsi0', from: `nfs-migration:${vmid}/vm-${vmid}-disk-0.qcow2`, storage: 'local-lvm', volume: expect.stringMatching(/^local-lvm:vm-\d+-disk-\d+$/) })]);
    expect(result.moves![0]!.attempts).toBeGreaterThanOrEqual(2);
    // The disk is on its storage; nothing refers to the migration datastore; the overlay is gone, the VMDK as it was.
    const after = (await suite.lab.deps.proxmox!.config.get(node, vmid)).values;
    expect(Object.entries(after).filter(([, v]) => String(v).includes('nfs-migration'))).toEqual([]);
    expect(existsSync(path.join(nfsMigrationDir(suite.lab.stateDir), 'images', String(vmid), `vm-${vmid}-disk-0.qcow2`))).toBe(false);
    expect(vmdkChecksums()).toBe(before);
    // The guest ran through it all, and its file reads back from the new disk (the page cache dropped first).
    expect((await suite.lab.deps.proxmox!.agent.runState(node, vmid)).qmpstatus).toBe('running');
    const read = await guestExec(agentSocket, '/bin/sh', ['-c', 'echo 3 > /proc/sys/vm/drop_caches && sha256sum /root/before-the-move']);
    expect(read.stdout.split(' ')[0]).toBe(checksum);
    const downtime = result.verification!.downtimeSeconds!;
    const move = result.timings.find((t) => t.stage === 'move')!;
    console.log(`overlay cutover of mig-app01: downtime ${downtime} s; disk moved live in ${((move.endedAt! - move.startedAt) / 1000).toFixed(1)} s (${result.moves![0]!.attempts} attempts)`);
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
