import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, openSync, writeSync, closeSync, existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { type ProxmoxClient } from '../../../src/proxmox';
import { parseDisk } from '../../../src/proxmox/disks';
import { nfsMigrationDir } from '../../../lab/shared-paths';
import { FLAVOURS, startSim, type SimFixture } from '../../helpers/proxmox';

const run = promisify(execFile);

/**
 * Disk import: a VMDK on the shared NFS storage becomes a VM disk on the target storage through a real
 * `qemu-img convert`, and `qemu-img compare` proves the guest sees the same bytes.
 */
describe.each(FLAVOURS)('import-from of a VMDK, PVE %s', (flavour) => {
  let fx: SimFixture;
  let pve: ProxmoxClient;
  let source: string;

  beforeAll(async () => {
    fx = await startSim(flavour);
    pve = fx.client();
    // A 64 MiB disk with random data in scattered places (sparse elsewhere), as a streamOptimized-free
    // monolithicSparse VMDK like vSphere's export tools write.
    const importDir = path.join(nfsMigrationDir(fx.stateDir), 'import');
    mkdirSync(importDir, { recursive: true });
    const raw = path.join(fx.stateDir, 'source.raw');
    const fd = openSync(raw, 'w');
    for (const offsetMiB of [0, 7, 31, 63])
      writeSync(fd, randomBytes(256 * 1024), 0, 256 * 1024, offsetMiB * 1024 * 1024);
    closeSync(fd);
    await run('truncate', ['-s', '64M', raw]);
    source = path.join(importDir, 'app01.vmdk');
    await run('qemu-img', ['convert', '-q', '-f', 'raw', '-O', 'vmdk', raw, source]);
  });
  afterAll(() => fx.stop());

  it.each([
    ['local-lvm', undefined, 'raw'],
    ['local', 'qcow2', 'qcow2'],
  ] as const)(
    'imports into %s (%s) and the result is byte-for-byte the same disk',
    async (storage, format, expectedFormat) => {
      const vmid = storage === 'local' ? 301 : 300;
      await pve.vms.create({ node: 'pve2', vmid, name: `import${vmid}`, scsihw: 'virtio-scsi-single' });
      const { disk, task } = await pve.disks.import('pve2', vmid, 'scsi0', {
        storage,
        source: 'nfs-migration:import/app01.vmdk',
        format,
        options: { iothread: true },
      });
      expect(task?.exitstatus).toBe('OK');
      expect(disk.sizeBytes).toBe(64 * 1024 * 1024);
      expect(disk.options).toEqual({ iothread: '1' });
      const item = (await pve.storage.content('pve2', storage, { content: 'images', vmid })).find(
        (i) => i.volid === disk.volume,
      );
      expect(item).toMatchObject({ format: expectedFormat, size: 64 * 1024 * 1024 });

      const file =
        storage === 'local-lvm'
          ? path.join(fx.stateDir, 'proxmox', 'storage', 'local-lvm', 'pve2', `${disk.volume.split(':')[1]}.raw`)
          : path.join(
              fx.stateDir,
              'proxmox',
              'storage',
              'local',
              'pve2',
              'images',
              String(vmid),
              disk.volume.split('/')[1]!,
            );
      expect(existsSync(file)).toBe(true);
      const info = JSON.parse((await run('qemu-img', ['info', '--output=json', file])).stdout) as { format: string };
      expect(info.format).toBe(expectedFormat);
      // Exit status 0: identical content; 1: different (execFile would reject).
      const compared = await run('qemu-img', ['compare', '-f', 'vmdk', '-F', expectedFormat, source, file]);
      expect(compared.stdout).toMatch(/Images are identical/);

      // The import was counted as one, in a qmconfig task, for import-concurrency checks.
      const imports = fx.sim.cluster.tasks.history.filter((t) => t.imports > 0 && t.id === String(vmid));
      expect(imports.map((t) => [t.type, t.imports])).toEqual([['qmconfig', 1]]);
    },
  );

  it('an image that differs is told apart by the same comparison (the check can fail)', async () => {
    const disk = parseDisk((await pve.config.get('pve2', 300)).values.scsi0!);
    const file = path.join(fx.stateDir, 'proxmox', 'storage', 'local-lvm', 'pve2', `${disk.volume.split(':')[1]}.raw`);
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.from('changed'), 0, 7, 40 * 1024 * 1024);
    closeSync(fd);
    await expect(run('qemu-img', ['compare', '-f', 'vmdk', '-F', 'raw', source, file])).rejects.toMatchObject({
      code: 1,
    });
  });
});
