import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { makeGuestVmdk } from '../../../lab/guest-image/per-vm-config';
import type { SimulatorAdmin } from '../../../lab/proxmox-sim/admin-client';
import { qemuRuntime } from '../../../lab/proxmox-sim/qemu/runtime';
import { qmpCommand } from '../../../lab/qemu/qmp';
import { nfsMigrationDir } from '../../../lab/shared-paths';
import type { ProxmoxClient } from '../../../src/proxmox';
import { CopyProgress } from '../../../src/proxmox/copy-progress';
import { parseDisk } from '../../../src/proxmox/disks';
import { startSim, type SimFixture } from '../../helpers/proxmox';
import { until } from '../../helpers/wait';

/**
 * A live import of a bootable disk, under real QEMU: the guest boots at once while its disk streams in
 * (PVE's live-restore; the simulator's way of doing it without pve-qemu's alloc-track driver is in
 * lab/proxmox-sim/qemu/live-restore.ts), the task ends when the disk is in, the same QEMU then runs on
 * the new volume, and VMware's VMDK is only read. A task stopped before its stream fails "live-restore
 * failed" and leaves the VM stopped and locked, as PVE does. One TCG boot.
 */
const NODE = 'pve2';
const STREAM =
  /^restore-drive-scsi0: transferred \d+\.\d (B|KiB|MiB|GiB) of \d+\.\d (MiB|GiB) \(\d+\.\d\d%\) in (\d+[wdhms] ?)+$/;

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('live import of a bootable disk under real QEMU, PVE 9.1', () => {
  let fx: SimFixture;
  let root: ProxmoxClient;
  let admin: SimulatorAdmin;
  let descriptor: string;
  let flat: string;
  let sums: string[];

  beforeAll(async () => {
    fx = await startSim('9.1');
    root = fx.client({ auth: { kind: 'ticket', username: 'root@pam', password: fx.credentials.rootPassword } });
    admin = fx.admin();
    // The lab guest as VMware keeps it on the migration datastore: a VMDK descriptor and its flat extent.
    ({ descriptor, flat } = await makeGuestVmdk(
      'mac',
      path.join(nfsMigrationDir(fx.stateDir), 'guest430'),
      'guest430',
      { hostname: 'guest430', nics: [] },
    ));
    sums = [sha256(descriptor), sha256(flat)];
  });
  afterAll(() => fx?.stop());
  const overlaysLeft = () => readdirSync(qemuRuntime(fx.sim.cluster)!.dir).filter((f) => f.includes('live-restore'));

  const create = (vmid: number) =>
    root.vms.create(
      {
        node: NODE,
        vmid,
        name: `live${vmid}`,
        scsihw: 'virtio-scsi-single',
        liveRestore: true,
        extra: { scsi0: `local-lvm:0,import-from=${descriptor}`, boot: 'order=scsi0', agent: '1', memory: '512' },
      },
      { timeoutMs: 120_000 },
    );

  it('boots the guest before the stream ends; the same QEMU runs on the new volume afterwards, the agent answers, the VMDK is untouched', async () => {
    const vmid = 430;
    const result = await create(vmid);
    expect(result.task?.exitstatus).toBe('OK');
    const task = fx.sim.cluster.tasks.history.find((t) => t.type === 'qmcreate' && t.id === String(vmid))!;
    const log = task.log;
    const stream = log.filter((l) => STREAM.test(l));
    expect(stream.length).toBeGreaterThanOrEqual(1);
    expect(stream.at(-1)).toMatch(/ \(100\.00%\) in /);
    expect(log.slice(log.indexOf('starting VM for live import'))).toEqual([
      'starting VM for live import',
      ...stream,
      'restore-drive-scsi0: stream-job finished',
      'restore-drive jobs finished successfully, removing all tracking block devices',
      'TASK OK',
    ]);
    expect(new CopyProgress().read(log)).toMatchObject({ done: 384 * 1024 * 1024, total: 384 * 1024 * 1024 });

    // QEMU started while the task ran, and it is the one still running, now on the new volume alone.
    const qemu = await admin.qemu(vmid);
    if (!qemu.running) throw new Error(`VM ${vmid} has no QEMU after its live import`);
    expect(qemu.startedMs).toBeLessThan(task.endMs!);
    const volume = parseDisk(String((await root.config.get(NODE, vmid)).values.scsi0)).volume;
    expect(volume).toBe(`local-lvm:vm-${vmid}-disk-0`);
    const target = fx.sim.cluster.storages.resolve(volume, NODE).file;
    const blocks = (await qmpCommand(qemu.qmpSocket, 'query-block')) as Array<{
      device: string;
      inserted?: { file: string; backing_file?: string };
    }>;
    expect(blocks.find((b) => b.device === 'drive-scsi0')!.inserted).toMatchObject({ file: target });
    expect(blocks.find((b) => b.device === 'drive-scsi0')!.inserted!.backing_file).toBeUndefined();
    expect(overlaysLeft()).toEqual([]);
    expect((await root.power.status(NODE, vmid)).lock).toBeUndefined();

    await until(
      'the guest agent to answer',
      async () => {
        const r = await fx.raw('POST', `/api2/json/nodes/${NODE}/qemu/${vmid}/agent/ping`);
        return r.status === 200 ? true : undefined;
      },
      600_000,
      500,
    );
    const hostname = await fx.raw('GET', `/api2/json/nodes/${NODE}/qemu/${vmid}/agent/get-host-name`);
    expect(hostname.body.data.result).toEqual({ 'host-name': 'guest430' });
    expect([sha256(descriptor), sha256(flat)]).toEqual(sums);
  }, 720_000);

  it('a stop of the task before its stream: "live-restore failed", the VM stopped and locked `import`, its QEMU gone, the overlay removed', async () => {
    const vmid = 431;
    const creating = create(vmid).catch((err: unknown) => err);
    const upid = await until(
      'the live import to start its VM',
      async () =>
        fx.sim.cluster.tasks
          .running('qmcreate')
          .find((t) => t.id === String(vmid) && t.log.includes('starting VM for live import'))?.upid,
      60_000,
      5,
    );
    const stop = await fx.raw('DELETE', `/api2/json/nodes/${NODE}/tasks/${encodeURIComponent(upid)}`);
    expect(stop.status).toBe(200);
    expect(await creating).toMatchObject({ exitstatus: 'live-restore failed' });
    const log = fx.sim.cluster.tasks.get(upid)!.log;
    expect(log.filter((l) => l.startsWith('An error occurred during live-restore: '))).toEqual([
      expect.stringMatching(/interrupted by signal$/),
    ]);
    expect(await root.power.status(NODE, vmid)).toMatchObject({ status: 'stopped', lock: 'import' });
    expect(await admin.qemu(vmid)).toMatchObject({ running: false });
    expect(overlaysLeft()).toEqual([]);
    expect([sha256(descriptor), sha256(flat)]).toEqual(sums);
  }, 120_000);
});
