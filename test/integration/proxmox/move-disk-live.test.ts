import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { makeGuestVmdk } from '../../../lab/guest-image/per-vm-config';
import type { SimulatorAdmin } from '../../../lab/proxmox-sim/admin-client';
import { qmpCommand } from '../../../lab/qemu/qmp';
import { nfsMigrationDir } from '../../../lab/shared-paths';
import { CopyProgress } from '../../../src/proxmox/copy-progress';
import { parsePropertyString } from '../../../src/proxmox/property-string';
import { startSim, type SimFixture } from '../../helpers/proxmox';
import { hasPattern, simApi, writePattern, type SimApi } from '../../helpers/sim-api';
import { until } from '../../helpers/wait';

const run = promisify(execFile);

/**
 * move_disk of a running VM under real QEMU, as qemu-server does it: the VM boots the lab guest from a
 * qcow2 overlay on `nfs-migration` whose backing file is a VMDK in another folder of that storage (as a
 * conversion leaves it), and its disk is mirrored live (QMP drive-mirror, sync full) into a new volume on
 * `local-lvm`: the task log carries qemu-server's block-job lines while it runs, QEMU switches the drive,
 * the config names the new volume, the overlay is freed, the VMDK is untouched, the guest keeps running.
 * A stopped task, an injected fault and a QEMU killed mid-mirror each leave the config on the source and
 * free the target. One TCG boot per flavour (8.4's guest is stopped once mirrored, without waiting for it);
 * the offline move (qemu-img convert) runs on a simulated VM.
 */
const NODE = 'pve1';
const MiB = 1024 * 1024;
/** A free stretch of the guest's disk: after the GPT, before the first partition (1 MiB). */
const PATTERN_OFFSET = 256 * 1024;
const PROGRESS =
  /^drive-scsi0: transferred \d+\.\d (B|KiB|MiB|GiB) of \d+\.\d (KiB|MiB|GiB) \(\d+\.\d\d%\) in (\d+[wdhms] ?)+(, ready)?$/;

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const processAlive = (pid: number) =>
  existsSync(`/proc/${pid}`) && !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));

async function backingFile(file: string): Promise<string | undefined> {
  const { stdout } = await run('qemu-img', ['info', '-U', '--output=json', file]);
  return (JSON.parse(stdout) as { 'backing-filename'?: string })['backing-filename'];
}

interface Guest {
  vmid: number;
  /** The VMDK descriptor and its flat extent, in a folder of their own on nfs-migration. */
  descriptor: string;
  flat: string;
  overlay: string;
  overlayVolid: string;
}

/** The VM's own copy of the lab guest as a VMDK (descriptor + flat extent), and a qcow2 overlay on it named as PVE names a volume. */
async function guestOnOverlay(fx: SimFixture, vmid: number): Promise<Guest> {
  const nfs = nfsMigrationDir(fx.stateDir);
  const { descriptor, flat } = await makeGuestVmdk('mac', path.join(nfs, `guest${vmid}`), `guest${vmid}`, {
    hostname: `guest${vmid}`,
    nics: [],
  });
  const overlay = path.join(nfs, 'images', String(vmid), `vm-${vmid}-disk-0.qcow2`);
  mkdirSync(path.dirname(overlay), { recursive: true });
  await run('qemu-img', [
    'create',
    '-q',
    '-f',
    'qcow2',
    '-b',
    `../../guest${vmid}/guest${vmid}.vmdk`,
    '-F',
    'vmdk',
    overlay,
  ]);
  await writePattern(overlay, 'qcow2', 0x5a, PATTERN_OFFSET); // data only the overlay holds
  return { vmid, descriptor, flat, overlay, overlayVolid: `nfs-migration:${vmid}/vm-${vmid}-disk-0.qcow2` };
}

function vmForm(guest: Guest): Record<string, string> {
  return {
    name: `guest${guest.vmid}`,
    memory: '512',
    cores: '1',
    agent: '1',
    scsihw: 'virtio-scsi-single',
    boot: 'order=scsi0',
    scsi0: `${guest.overlayVolid},discard=on,iothread=1,size=384M`,
  };
}

/** The drive QEMU has for drive-scsi0 (query-block): the file it reads and its backing file (resolved). */
async function qemuDrive(admin: SimulatorAdmin, vmid: number): Promise<{ file: string; backing?: string }> {
  const qemu = await admin.qemu(vmid);
  if (!qemu.running) throw new Error(`VM ${vmid} has no QEMU`);
  const blocks = (await qmpCommand(qemu.qmpSocket, 'query-block')) as Array<{
    device: string;
    inserted?: { file: string; backing_file?: string };
  }>;
  const drive = blocks.find((b) => b.device === 'drive-scsi0')!.inserted!;
  return { file: drive.file, backing: drive.backing_file && path.resolve(drive.backing_file) };
}

describe('move_disk of a running VM: a live drive mirror, PVE 9.1', () => {
  let fx: SimFixture;
  let sim: SimApi;
  let admin: SimulatorAdmin;
  let guest: Guest;
  let pid: number;
  let backingSums: string[];
  const VMID = 720;
  const file = (volid: string) => fx.sim.cluster.storages.resolve(volid, NODE).file;
  const config = () => sim.ok('GET', `/nodes/${NODE}/qemu/${VMID}/config`);
  const taskStatus = (upid: string) => sim.ok('GET', `/nodes/${NODE}/tasks/${encodeURIComponent(upid)}/status`);
  const apiLog = async (upid: string) =>
    ((await sim.ok('GET', `/nodes/${NODE}/tasks/${encodeURIComponent(upid)}/log?limit=0`)) as Array<{ t: string }>).map(
      (l) => l.t,
    );
  const move = (form: Record<string, string>) =>
    sim.ok('POST', `/nodes/${NODE}/qemu/${VMID}/move_disk`, { disk: 'scsi0', ...form }) as Promise<string>;
  /** Waits until the task log, read through the API while the task runs, has `n` mirror progress lines. */
  const progressWhileRunning = (upid: string, n: number) =>
    until(
      `${n} progress lines in the log of the running task`,
      async () => {
        const lines = (await apiLog(upid)).filter((l) => PROGRESS.test(l));
        const { status } = await taskStatus(upid);
        if (status !== 'running')
          throw new Error(`the task ended before ${n} progress lines: ${(await apiLog(upid)).join(' | ')}`);
        return lines.length >= n ? lines : undefined;
      },
      60_000,
      200,
    );

  beforeAll(async () => {
    fx = await startSim('9.1');
    sim = simApi(fx);
    admin = fx.admin();
    guest = await guestOnOverlay(fx, VMID);
    backingSums = [sha256(guest.descriptor), sha256(guest.flat)];
    await sim.createVm(VMID, vmForm(guest));
    expect(await sim.task('POST', `/nodes/${NODE}/qemu/${VMID}/status/start`)).toBe('OK');
    const qemu = await admin.qemu(VMID);
    if (!qemu.running) throw new Error('the VM did not start under QEMU');
    pid = qemu.pid;
  }, 120_000);

  afterAll(async () => {
    await fx?.stop();
    if (pid) expect(processAlive(pid)).toBe(false);
  });

  it('a stop of the task (DELETE …/tasks/{upid}) mid-mirror cancels the job: config unchanged, target freed, VM running on its overlay', async () => {
    const before = await config();
    const upid = await move({ storage: 'local-lvm', delete: '1', bwlimit: '8192' }); // 8 MiB/s: the 384 MiB take ~48 s
    const seen = await progressWhileRunning(upid, 2);
    expect(seen[0]).toMatch(/^drive-scsi0: transferred .* in [01]s$/); // the first poll, right after drive-mirror

    const started = Date.now();
    const stop = await fx.raw('DELETE', `/api2/json/nodes/${NODE}/tasks/${encodeURIComponent(upid)}`);
    expect([stop.status, stop.body]).toEqual([200, { data: null }]);
    // PVE's stop_task answers once the worker has ended (it gives it 5 s before SIGKILL).
    expect(await taskStatus(upid)).toMatchObject({
      status: 'stopped',
      exitstatus: 'storage migration failed: block job (mirror) error: interrupted by signal',
    });
    expect(Date.now() - started).toBeLessThan(5_500);
    const log = await apiLog(upid);
    if (process.env.MOVE_DEBUG) process.stdout.write(`${log.join('\n')}\n`);
    expect(log.slice(0, 4)).toEqual([
      `copying volume '${guest.overlayVolid}' from current storage 'nfs-migration' to target storage 'local-lvm'`,
      `create full clone of drive scsi0 (${guest.overlayVolid})`,
      "allocated target volume 'local-lvm:vm-720-disk-0'",
      'drive mirror is starting for drive-scsi0 with bandwidth limit: 8192 KiB/s',
    ]);
    // QEMU concludes a job cancelled before it was ready with "Operation canceled": qemu-server dismisses it and warns.
    expect(log.slice(-4)).toEqual([
      'drive-scsi0: Cancelling block job',
      'WARN: drive-scsi0: Operation canceled (io-status: ok)',
      'drive-scsi0: Done.',
      'TASK ERROR: storage migration failed: block job (mirror) error: interrupted by signal',
    ]);

    expect(await config()).toEqual(before); // same volume, no unusedN, same digest
    expect(existsSync(file('local-lvm:vm-720-disk-0'))).toBe(false);
    expect(existsSync(guest.overlay)).toBe(true);
    expect(processAlive(pid)).toBe(true);
    expect(await qemuDrive(admin, VMID)).toEqual({ file: guest.overlay, backing: guest.descriptor });
    expect(await qmpCommand(((await admin.qemu(VMID)) as { qmpSocket: string }).qmpSocket, 'query-block-jobs')).toEqual(
      [],
    );

    // An ended task is left alone; a task that is not this node's, or no UPID, is refused as PVE does.
    expect((await fx.raw('DELETE', `/api2/json/nodes/${NODE}/tasks/${encodeURIComponent(upid)}`)).body).toEqual({
      data: null,
    });
    const other = await fx.raw('DELETE', `/api2/json/nodes/pve2/tasks/${encodeURIComponent(upid)}`);
    expect([other.status, other.body.errors]).toEqual([400, { upid: 'no such task' }]);
    const garbage = await fx.raw('DELETE', `/api2/json/nodes/${NODE}/tasks/not-a-upid`);
    expect([garbage.status, garbage.body.errors]).toEqual([400, { upid: 'unable to parse worker upid' }]);
    const audit = await fx.raw('DELETE', `/api2/json/nodes/${NODE}/tasks/${encodeURIComponent(upid)}`, {
      headers: { authorization: `PVEAPIToken=${fx.credentials.auditTokenId}=${fx.credentials.auditTokenSecret}` },
    });
    expect([audit.status, audit.body.message]).toEqual([403, `Permission check failed (/nodes/${NODE}, Sys.Modify)\n`]);
  }, 90_000);

  it('an injected task failure hits the mirror after its first progress line: the job is cancelled, the target freed', async () => {
    const before = await config();
    await admin.setFaults({ seed: 1, taskFailureRate: 1, pathPattern: '/move_disk$' });
    let upid: string;
    try {
      upid = await move({ storage: 'local-lvm', bwlimit: '8192' });
    } finally {
      await admin.clearFaults();
    }
    const fault = 'storage migration failed: block job (mirror) error: task failed (fault injected by the simulator)';
    expect(await sim.finish(upid)).toBe(fault);
    const log = sim.log(upid);
    expect(log.filter((l) => PROGRESS.test(l))).toHaveLength(1);
    expect(log.slice(-4)).toEqual([
      'drive-scsi0: Cancelling block job',
      'WARN: drive-scsi0: Operation canceled (io-status: ok)',
      'drive-scsi0: Done.',
      `TASK ERROR: ${fault}`,
    ]);
    expect(await config()).toEqual(before);
    expect(existsSync(file('local-lvm:vm-720-disk-0'))).toBe(false);
    expect(processAlive(pid)).toBe(true);
    expect((await qemuDrive(admin, VMID)).file).toBe(guest.overlay);
  }, 60_000);

  it("moves the disk live to local-lvm with delete=1: qemu-server's log, the config on the new standalone volume, the overlay gone, the VMDK untouched, the guest still answering", async () => {
    // The guest has booted and its agent answers before the move (a deadline, not a timing: TCG on a loaded machine).
    await until(
      'the guest agent to answer',
      async () => {
        const r = await fx.raw('POST', `/api2/json/nodes/${NODE}/qemu/${VMID}/agent/ping`);
        return r.status === 200 ? r.body.data : undefined;
      },
      600_000,
      500,
    );
    const started = Date.now();
    const upid = await move({ storage: 'local-lvm', delete: '1' });
    expect(await sim.finish(upid)).toBe('OK');
    process.stdout.write(
      `live move of the 384 MiB disk (TCG guest running): ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
    );

    const log = await apiLog(upid);
    if (process.env.MOVE_DEBUG) process.stdout.write(`${log.join('\n')}\n`);
    const progress = log.filter((l) => PROGRESS.test(l));
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress.at(-1)).toMatch(/ \(100\.00%\) in \d+s, ready$/);
    expect(progress.slice(0, -1).every((l) => !l.endsWith(', ready'))).toBe(true);
    expect(log).toEqual([
      `copying volume '${guest.overlayVolid}' from current storage 'nfs-migration' to target storage 'local-lvm'`,
      `create full clone of drive scsi0 (${guest.overlayVolid})`,
      "allocated target volume 'local-lvm:vm-720-disk-0'",
      'drive mirror is starting for drive-scsi0',
      ...progress,
      "all 'mirror' jobs are ready",
      'drive-scsi0: Completing block job...',
      'drive-scsi0: Completed successfully.',
      'drive-scsi0: mirror-job finished',
      `removing source volume '${guest.overlayVolid}' after successful copy`,
      'TASK OK',
    ]);
    // ferry's progress parser reads these lines: the whole disk at the end.
    const copied = new CopyProgress().read(log)!;
    expect(copied.done).toBe(copied.total);
    expect(copied.total).toBeGreaterThanOrEqual(384 * MiB * 0.99);

    const after = await config();
    expect(parsePropertyString(after.scsi0, 'file')).toEqual({
      file: 'local-lvm:vm-720-disk-0',
      discard: 'on',
      iothread: '1',
      size: '384M',
    });
    expect(Object.keys(after).filter((k) => k.startsWith('unused'))).toEqual([]);
    const target = file('local-lvm:vm-720-disk-0');
    expect(existsSync(guest.overlay)).toBe(false);
    expect([sha256(guest.descriptor), sha256(guest.flat)]).toEqual(backingSums);
    expect(await backingFile(target)).toBeUndefined();
    expect(await hasPattern(target, 'raw', 0x5a, PATTERN_OFFSET)).toBe(true); // the overlay's own data came along
    const head = async (f: string, format: string) => {
      const out = path.join(fx.stateDir, `head-${path.basename(f)}`);
      await run('qemu-img', ['dd', '-U', '-f', format, '-O', 'raw', 'bs=65536', 'count=4', `if=${f}`, `of=${out}`]);
      return readFileSync(out);
    };
    expect((await head(target, 'raw')).equals(await head(guest.descriptor, 'vmdk'))).toBe(true); // and the VMDK's (the GPT)

    // The same QEMU runs on, on the new volume, and the guest answers.
    expect(((await admin.qemu(VMID)) as { pid: number }).pid).toBe(pid);
    expect(await qemuDrive(admin, VMID)).toEqual({ file: target, backing: undefined });
    expect((await sim.ok('GET', `/nodes/${NODE}/qemu/${VMID}/status/current`)).qmpstatus).toBe('running');
    expect(await sim.ok('POST', `/nodes/${NODE}/qemu/${VMID}/agent/ping`)).toEqual({ result: {} });
    expect((await sim.ok('GET', `/nodes/${NODE}/qemu/${VMID}/agent/get-host-name`)).result).toEqual({
      'host-name': `guest${VMID}`,
    });
  }, 720_000);

  it('QEMU killed mid-mirror: the task fails, the config still names the source, the target is freed', async () => {
    const before = await config();
    const source = parsePropertyString(before.scsi0, 'file').file!;
    const upid = await move({ storage: 'nfs-migration', format: 'qcow2', bwlimit: '8192' });
    await progressWhileRunning(upid, 1);
    process.kill(pid, 'SIGKILL');
    if (process.env.MOVE_DEBUG) void sim.finish(upid).then(() => process.stdout.write(`${sim.log(upid).join('\n')}\n`));
    // qemu-server's own race: QEMU is found gone before the next poll, or the poll's connection fails.
    expect(await sim.finish(upid)).toMatch(
      new RegExp(
        `^storage migration failed: block job \\(mirror\\) error: VM ${VMID} (not running|qmp command 'query-block-jobs' failed - .+)$`,
      ),
    );
    expect(sim.log(upid)).toEqual(
      expect.arrayContaining([
        "allocated target volume 'nfs-migration:720/vm-720-disk-0.qcow2'",
        'drive-scsi0: Cancelling block job',
      ]),
    );
    const after = await config();
    expect(after.scsi0).toBe(before.scsi0);
    expect(existsSync(file(source))).toBe(true);
    expect(existsSync(file('nfs-migration:720/vm-720-disk-0.qcow2'))).toBe(false);
    expect((await sim.ok('GET', `/nodes/${NODE}/qemu/${VMID}/status/current`)).status).toBe('stopped');
  }, 90_000);
});

describe('move_disk of a running VM, PVE 8.4: block-job-complete, the source kept as unused0', () => {
  let fx: SimFixture;
  let sim: SimApi;
  let admin: SimulatorAdmin;
  const VMID = 740;

  beforeAll(async () => {
    fx = await startSim('8.4');
    sim = simApi(fx);
    admin = fx.admin();
  });
  afterAll(() => fx?.stop());

  it('mirrors without waiting for the guest; qemu-server 8.4 words the limit in KB/s and logs no copy/unused lines', async () => {
    const guest = await guestOnOverlay(fx, VMID);
    await sim.createVm(VMID, vmForm(guest));
    expect(await sim.task('POST', `/nodes/${NODE}/qemu/${VMID}/status/start`)).toBe('OK');
    const upid = await sim.ok('POST', `/nodes/${NODE}/qemu/${VMID}/move_disk`, {
      disk: 'scsi0',
      storage: 'local-lvm',
      bwlimit: '262144',
    });
    expect(await sim.finish(upid)).toBe('OK');
    const log = sim.log(upid);
    const progress = log.filter((l) => PROGRESS.test(l));
    expect(log).toEqual([
      `create full clone of drive scsi0 (${guest.overlayVolid})`,
      `allocated target volume 'local-lvm:vm-${VMID}-disk-0'`,
      'drive mirror is starting for drive-scsi0 with bandwidth limit: 262144 KB/s',
      ...progress,
      "all 'mirror' jobs are ready",
      'drive-scsi0: Completing block job...',
      'drive-scsi0: Completed successfully.',
      'drive-scsi0: mirror-job finished',
      'TASK OK',
    ]);
    const after = await sim.ok('GET', `/nodes/${NODE}/qemu/${VMID}/config`);
    expect([parsePropertyString(after.scsi0, 'file').file, after.unused0]).toEqual([
      `local-lvm:vm-${VMID}-disk-0`,
      guest.overlayVolid,
    ]);
    const target = fx.sim.cluster.storages.resolve(`local-lvm:vm-${VMID}-disk-0`, NODE).file;
    expect(await qemuDrive(admin, VMID)).toEqual({ file: target, backing: undefined });
    expect(existsSync(guest.overlay)).toBe(true);
    expect(await sim.task('POST', `/nodes/${NODE}/qemu/${VMID}/status/stop`)).toBe('OK');
  }, 120_000);
});

describe('move_disk of a stopped VM: qemu-img convert flattens the overlay, PVE 9.1', () => {
  let fx: SimFixture;
  let sim: SimApi;
  const VMID = 730;

  beforeAll(async () => {
    fx = await startSim('9.1');
    sim = simApi(fx);
  });
  afterAll(() => fx?.stop());

  it('the new volume holds the whole chain and has no backing file; the overlay stays as unused0 (and moves on its own), its backing untouched', async () => {
    const nfs = nfsMigrationDir(fx.stateDir);
    const base = path.join(nfs, 'disk730', 'disk730.raw');
    mkdirSync(path.dirname(base), { recursive: true });
    await run('truncate', ['-s', '64M', base]);
    await writePattern(base, 'raw', 0x11, 0, MiB);
    await writePattern(base, 'raw', 0x22, 40 * MiB, MiB);
    const overlay = path.join(nfs, 'images', String(VMID), `vm-${VMID}-disk-0.qcow2`);
    mkdirSync(path.dirname(overlay), { recursive: true });
    await run('qemu-img', ['create', '-q', '-f', 'qcow2', '-b', '../../disk730/disk730.raw', '-F', 'raw', overlay]);
    await writePattern(overlay, 'qcow2', 0x33, 40 * MiB, 64 * 1024);
    const baseSum = sha256(base);
    const volid = `nfs-migration:${VMID}/vm-${VMID}-disk-0.qcow2`;
    await sim.createVm(VMID, { name: 'offline', scsi0: `${volid},size=64M` });

    const upid = await sim.ok('POST', `/nodes/pve1/qemu/${VMID}/move_disk`, { disk: 'scsi0', storage: 'local-lvm' });
    expect(await sim.finish(upid)).toBe('OK');
    expect(sim.log(upid)).toEqual([
      `copying volume '${volid}' from current storage 'nfs-migration' to target storage 'local-lvm'`,
      `create full clone of drive scsi0 (${volid})`,
      `allocated target volume 'local-lvm:vm-${VMID}-disk-0'`,
      `adding source volume '${volid}' as 'unused0' to config`,
      'TASK OK',
    ]);
    const after = await sim.ok('GET', `/nodes/pve1/qemu/${VMID}/config`);
    expect([after.scsi0, after.unused0]).toEqual([`local-lvm:vm-${VMID}-disk-0,size=64M`, volid]);
    const target = fx.sim.cluster.storages.resolve(`local-lvm:vm-${VMID}-disk-0`, 'pve1').file;
    expect(await backingFile(target)).toBeUndefined();
    await run('qemu-img', ['compare', '-q', '-f', 'qcow2', '-F', 'raw', overlay, target]); // exits 0 only if identical
    expect(await hasPattern(target, 'raw', 0x11, 0, MiB)).toBe(true);
    expect(await hasPattern(target, 'raw', 0x33, 40 * MiB, 64 * 1024)).toBe(true);
    expect(sha256(base)).toBe(baseSum);
    expect(existsSync(overlay)).toBe(true);

    // An unusedN volume moves too (offline, always): the entry names the new volume, bare.
    const unused = await sim.ok('POST', `/nodes/pve1/qemu/${VMID}/move_disk`, {
      disk: 'unused0',
      storage: 'local',
      delete: '1',
    });
    expect(await sim.finish(unused)).toBe('OK');
    expect((await sim.ok('GET', `/nodes/pve1/qemu/${VMID}/config`)).unused0).toBe(
      `local:${VMID}/vm-${VMID}-disk-0.qcow2`,
    );
    expect(existsSync(overlay)).toBe(false);
    expect(
      await backingFile(fx.sim.cluster.storages.resolve(`local:${VMID}/vm-${VMID}-disk-0.qcow2`, 'pve1').file),
    ).toBeUndefined();
    expect(sha256(base)).toBe(baseSum);

    // Same storage and format, no target: PVE's refusals before the task.
    const same = await fx.raw('POST', `/api2/json/nodes/pve1/qemu/${VMID}/move_disk`, {
      form: { disk: 'scsi0', storage: 'local-lvm' },
    });
    expect([same.status, same.body.message]).toEqual([500, "you can't move to the same storage with same format\n"]);
    const noTarget = await fx.raw('POST', `/api2/json/nodes/pve1/qemu/${VMID}/move_disk`, { form: { disk: 'scsi0' } });
    expect([noTarget.status, noTarget.body.errors?.storage]).toEqual([
      400,
      "both 'storage' and 'target-vmid' missing, either needs to be set",
    ]);
  });
});
