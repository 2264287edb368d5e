import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, copyFileSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ProxmoxRequestError, ProxmoxTaskError, type ProxmoxClient } from '../../../src/proxmox';
import { parseDisk } from '../../../src/proxmox/disks';
import { nfsMigrationDir } from '../../../lab/shared-paths';
import { FLAVOURS, startSim, type SimFixture } from '../../helpers/proxmox';

const run = promisify(execFile);

/**
 * What real PVE offers for "down for about one boot": live import at creation (live-restore with
 * import-from disks). And what it does not: move_disk of a disk attached by absolute path.
 */
describe.each(FLAVOURS)('live import and path-attached disks, PVE %s', (flavour) => {
  let fx: SimFixture;
  let root: ProxmoxClient;
  let source: string;

  beforeAll(async () => {
    // The copy takes a while, so the running VM and its lock can be seen before the task ends.
    fx = await startSim(flavour, { importTaskMs: 1_500 });
    root = fx.client({ auth: { kind: 'ticket', username: 'root@pam', password: fx.credentials.rootPassword } });
    const dir = path.join(nfsMigrationDir(fx.stateDir), 'app01');
    mkdirSync(dir, { recursive: true });
    const raw = path.join(fx.stateDir, 'source.raw');
    const fd = openSync(raw, 'w');
    for (const offsetMiB of [0, 9, 31]) writeSync(fd, randomBytes(128 * 1024), 0, 128 * 1024, offsetMiB * 1024 * 1024);
    closeSync(fd);
    await run('truncate', ['-s', '32M', raw]);
    source = path.join(dir, 'app01.vmdk');
    await run('qemu-img', ['convert', '-q', '-f', 'raw', '-O', 'vmdk', raw, source]);
  });
  afterAll(() => fx.stop());

  it('creates the VM running at once, locked `import` until the disk has streamed in; the task ends then', async () => {
    const vmid = 410;
    const creating = root.vms.create(
      {
        node: 'pve2',
        vmid,
        name: 'live410',
        scsihw: 'virtio-scsi-single',
        liveRestore: true,
        extra: { scsi0: `local-lvm:0,import-from=${source}`, net0: 'virtio=00:50:56:01:02:03,bridge=vmbr0' },
      },
      { timeoutMs: 60_000 },
    );
    const during = await waitFor(async () => {
      const status = await root.power.status('pve2', vmid).catch(() => undefined);
      return status?.status === 'running' ? status : undefined;
    });
    expect(during.lock).toBe('import');
    const create = fx.sim.cluster.tasks.history.find((t) => t.type === 'qmcreate' && t.id === String(vmid))!;
    expect(create.endMs).toBeUndefined(); // the task still runs while the VM does
    const result = await creating;
    expect(result.task?.exitstatus).toBe('OK');
    const config = (await root.config.get('pve2', vmid)).values;
    expect(config.lock).toBeUndefined();
    expect(config.net0).toMatch(/^virtio=00:50:56:01:02:03,bridge=vmbr0/);
    expect((await root.power.status('pve2', vmid)).status).toBe('running');
    const disk = parseDisk(String(config.scsi0));
    expect(disk.sizeBytes).toBe(32 * 1024 * 1024);
    const file = fx.sim.cluster.storages.resolve(disk.volume, 'pve2').file;
    expect((await run('qemu-img', ['compare', '-f', 'vmdk', '-F', 'raw', source, file])).stdout).toMatch(
      /Images are identical/,
    );
    expect([create.type, create.imports]).toEqual(['qmcreate', 1]);
  });

  it('a live import whose source vanishes mid-copy fails "live-restore failed" and leaves the VM stopped and locked', async () => {
    const vmid = 413;
    const doomed = path.join(path.dirname(source), 'doomed.vmdk');
    copyFileSync(source, doomed);
    const creating = root.vms.create({
      node: 'pve2',
      vmid,
      name: 'live413',
      liveRestore: true,
      extra: { scsi0: `local-lvm:0,import-from=${doomed}` },
    });
    const failed = expect(creating).rejects.toBeInstanceOf(ProxmoxTaskError);
    await waitFor(async () =>
      (await root.power.status('pve2', vmid).catch(() => undefined))?.status === 'running' ? true : undefined,
    );
    rmSync(doomed);
    await failed;
    await expect(creating).rejects.toMatchObject({ exitstatus: 'live-restore failed' });
    expect(await root.power.status('pve2', vmid)).toMatchObject({ status: 'stopped', lock: 'import' });
  });

  it('live-restore without an import-from disk is no live import: the VM is created and stays stopped', async () => {
    const result = await root.vms.create({
      node: 'pve2',
      vmid: 411,
      name: 'plain411',
      liveRestore: true,
      extra: { scsi0: 'local-lvm:1' },
    });
    expect(result.task?.exitstatus).toBe('OK');
    const status = await root.power.status('pve2', 411);
    expect(status.status).toBe('stopped');
    expect(status.lock).toBeUndefined();
  });

  it('refuses at once to move a disk attached by absolute path (unable to parse volume ID), as a non-retryable error', async () => {
    await root.vms.create({ node: 'pve2', vmid: 412, name: 'attached412' });
    await root.config.ensure('pve2', 412, { scsi0: source });
    const tasksBefore = fx.sim.cluster.tasks.history.length;
    const moving = root.disks.move('pve2', 412, 'scsi0', { storage: 'local-lvm' });
    await expect(moving).rejects.toBeInstanceOf(ProxmoxRequestError);
    await expect(moving).rejects.toMatchObject({
      category: 'invalid',
      message: expect.stringContaining(`unable to parse volume ID '${source}'`),
    });
    expect(fx.sim.cluster.tasks.history.slice(tasksBefore).filter((t) => t.type === 'qmmove')).toEqual([]);
    expect(parseDisk(String((await root.config.get('pve2', 412)).values.scsi0)).volume).toBe(source);
  });
});

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}
