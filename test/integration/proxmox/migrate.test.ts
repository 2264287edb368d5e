import { existsSync } from 'node:fs';
import { FLAVOURS, startSim, type SimFixture } from '../../helpers/proxmox';
import { hasPattern, simApi, writePattern, type SimApi } from '../../helpers/sim-api';

/**
 * Migration between the cluster's nodes as qemu-server's QemuMigrate does it: the preconditions (allowed
 * nodes, local disks with foreach_volid's attributes), a `qmigrate` task that copies local disks to the
 * target node (the bytes compared) and removes them here, `lock: migrate` meanwhile, a shared disk that
 * stays; live migration of a running simulated VM; PVE's refusals and its log lines.
 */
describe.each(FLAVOURS)('migrate, PVE %s', (flavour) => {
  let fx: SimFixture;
  let sim: SimApi;
  let next = 910;
  const file = (volid: string, node: string) => fx.sim.cluster.storages.resolve(volid, node).file;

  beforeAll(async () => {
    fx = await startSim(flavour);
    sim = simApi(fx);
  });
  afterAll(() => fx.stop());

  it('preconditions: running, the other nodes, the local disks (CD-ROM ISO and unused ones too)', async () => {
    const vmid = next++;
    await sim.createVm(vmid, {
      scsi0: 'local-lvm:1',
      scsi1: 'nfs-migration:1',
      ide2: 'local:iso/debian-12.8.0-amd64-netinst.iso,media=cdrom',
    });
    await sim.ok('PUT', `/nodes/pve1/qemu/${vmid}/config`, { delete: 'scsi0' });
    const pre = await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/migrate`);
    expect(pre).toMatchObject({
      running: 0,
      allowed_nodes: ['pve2', 'pve3'],
      not_allowed_nodes: { pve2: {}, pve3: {} },
      local_resources: [],
      'mapped-resources': [],
    });
    expect('has-dbus-vmstate' in pre).toBe(flavour === '9.1');
    const disks = Object.fromEntries(pre.local_disks.map((d: { volid: string }) => [d.volid, d]));
    expect(Object.keys(disks).sort()).toEqual([
      `local-lvm:vm-${vmid}-disk-0`,
      'local:iso/debian-12.8.0-amd64-netinst.iso',
    ]);
    expect(disks[`local-lvm:vm-${vmid}-disk-0`]).toMatchObject({ is_unused: 1, is_attached: 0, cdrom: 0 });
    expect(disks['local:iso/debian-12.8.0-amd64-netinst.iso']).toMatchObject({
      cdrom: 1,
      is_attached: 1,
      drivename: 'ide2',
    });
    // A local CD-ROM image blocks an offline migration too.
    expect(await sim.task('POST', `/nodes/pve1/qemu/${vmid}/migrate`, { target: 'pve2' })).toBe('migration aborted');
  });

  it("offline: local disks copied to the target node, removed here; a shared disk stays; the VM is the target's", async () => {
    const vmid = next++;
    await sim.createVm(vmid, { scsi0: 'local-lvm:1', scsi1: 'nfs-migration:1' });
    const before = await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/config`);
    const local = before.scsi0.split(',')[0];
    await writePattern(file(local, 'pve1'), 'raw', 0x4d);
    fx.sim.cluster.settings.importTaskMs = 300;
    let upid: string;
    try {
      upid = await sim.ok('POST', `/nodes/pve1/qemu/${vmid}/migrate`, { target: 'pve2' });
      expect(upid).toContain(`:qmigrate:${vmid}:`);
      await new Promise((r) => setTimeout(r, 100));
      expect((await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/config`)).lock).toBe('migrate');
      expect(await sim.finish(upid)).toBe('OK');
    } finally {
      fx.sim.cluster.settings.importTaskMs = 0;
    }
    const log = sim.log(upid).map((l) => l.replace(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d /, ''));
    expect(log).toEqual(
      expect.arrayContaining([
        `starting migration of VM ${vmid} to node 'pve2' (192.0.2.12)`,
        `found local disk '${local}' (attached)`,
        'copying local disk images',
        `volume '${local}' is '${local}' on the target`,
        expect.stringMatching(/^migration finished successfully \(duration 00:00:0\d\)$/),
      ]),
    );
    expect(sim.log(upid)[0]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d starting migration/);
    const after = await sim.ok('GET', `/nodes/pve2/qemu/${vmid}/config`);
    expect([after.scsi0, after.scsi1, after.lock]).toEqual([before.scsi0, before.scsi1, undefined]);
    expect(await hasPattern(file(local, 'pve2'), 'raw', 0x4d)).toBe(true);
    expect(existsSync(file(local, 'pve1'))).toBe(false);
    expect(
      (await sim.ok('GET', '/cluster/resources?type=vm')).find((r: { vmid: number }) => r.vmid === vmid).node,
    ).toBe('pve2');

    // Back, onto another storage.
    const backUpid = await sim.ok('POST', `/nodes/pve2/qemu/${vmid}/migrate`, {
      target: 'pve1',
      targetstorage: 'local',
    });
    expect([await sim.finish(backUpid), sim.log(backUpid).filter((l) => /ERROR|can't/.test(l))]).toEqual(['OK', []]);
    const back = await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/config`);
    expect(back.scsi0).toMatch(new RegExp(`^local:${vmid}/vm-${vmid}-disk-0\\.raw,`));
    expect(await hasPattern(file(back.scsi0.split(',')[0], 'pve1'), 'raw', 0x4d)).toBe(true);
  });

  it('online: a running VM needs --online, its local disks with-local-disks; then it runs on the target', async () => {
    const vmid = next++;
    await sim.createVm(vmid, { scsi0: 'local-lvm:1' });
    expect(await sim.task('POST', `/nodes/pve1/qemu/${vmid}/status/start`)).toBe('OK');
    const notOnline = await fx.raw('POST', `/api2/json/nodes/pve1/qemu/${vmid}/migrate`, { form: { target: 'pve3' } });
    expect(notOnline.body.message).toBe("can't migrate running VM without --online\n");
    const local = await fx.raw('POST', `/api2/json/nodes/pve1/qemu/${vmid}/migrate`, { form: { target: 'pve1' } });
    expect([local.status, local.body.errors]).toEqual([400, { target: 'target is local node.' }]);
    const refused = await sim.ok('POST', `/nodes/pve1/qemu/${vmid}/migrate`, { target: 'pve3', online: '1' });
    expect(await sim.finish(refused)).toBe('migration aborted');
    expect(sim.log(refused).join('\n')).toContain(
      `can't migrate local disk 'local-lvm:vm-${vmid}-disk-0': can't live migrate attached local disks without with-local-disks option`,
    );
    expect(
      await sim.task('POST', `/nodes/pve1/qemu/${vmid}/migrate`, {
        target: 'pve3',
        online: '1',
        'with-local-disks': '1',
      }),
    ).toBe('OK');
    expect(await sim.ok('GET', `/nodes/pve3/qemu/${vmid}/status/current`)).toMatchObject({ status: 'running' });
  });
});
