import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { promisify } from 'node:util';
import { SAMPLE_POOL } from '../../../lab/proxmox-sim/sample-cluster';
import { FLAVOURS, startSim, type SimFixture } from '../../helpers/proxmox';
import { hasPattern, simApi, writePattern, type SimApi } from '../../helpers/sim-api';

const run = promisify(execFile);

/**
 * Clones and templates as qemu-server makes them: a full clone copies every disk (qemu-img convert, the
 * bytes compared) under the new VM's `lock: clone` in a `qmclone` task, with new MACs and SMBIOS UUID; a
 * template's disks become read-only base volumes, and its linked clones are thin copies (local-lvm) or
 * qcow2 overlays backed by the base file (a directory storage) that keep a directory template from being
 * destroyed; a clone to another node needs shared storage; PVE's refusals word for word.
 */
describe.each(FLAVOURS)('clones and templates, PVE %s', (flavour) => {
  let fx: SimFixture;
  let sim: SimApi;
  let next = 600;
  const file = (volid: string, node = 'pve1') => fx.sim.cluster.storages.resolve(volid, node).file;
  const config = (vmid: number, node = 'pve1') => sim.ok('GET', `/nodes/${node}/qemu/${vmid}/config`);
  const volume = (value: string) => value.split(',')[0]!;

  beforeAll(async () => {
    fx = await startSim(flavour);
    sim = simApi(fx);
  });
  afterAll(() => fx.stop());

  it('a full clone of a VM: its disks copied byte for byte, new MAC and UUID, `Copy-of-VM-<name>`, in the pool asked for', async () => {
    const vmid = next++;
    await sim.createVm(vmid, {
      name: 'web',
      scsi0: 'local-lvm:1',
      efidisk0: 'local-lvm:1,efitype=4m',
      net0: 'virtio,bridge=vmbr0,tag=10',
      ide2: 'local:iso/debian-12.8.0-amd64-netinst.iso,media=cdrom',
    });
    const source = await config(vmid);
    await writePattern(file(volume(source.scsi0)), 'raw', 0x5a, 1024 * 1024);
    fx.sim.cluster.settings.importTaskMs = 400;
    let upid: string;
    try {
      upid = await sim.ok('POST', `/nodes/pve1/qemu/${vmid}/clone`, { newid: String(vmid + 50), pool: SAMPLE_POOL });
      expect(upid).toMatch(new RegExp(`:qmclone:${vmid}:`));
      await new Promise((r) => setTimeout(r, 150));
      expect((await config(vmid + 50)).lock).toBe('clone');
      expect((await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/config`)).lock).toBeUndefined(); // the source is not locked
      expect(await sim.finish(upid)).toBe('OK');
    } finally {
      fx.sim.cluster.settings.importTaskMs = 0;
    }
    const clone = await config(vmid + 50);
    expect(clone).toMatchObject({
      name: 'Copy-of-VM-web',
      ide2: source.ide2,
      boot: source.boot, // In key order, as clone_vm walks them: efidisk0 first.
      efidisk0: `local-lvm:vm-${vmid + 50}-disk-0,efitype=4m,size=528K`,
      scsi0: `local-lvm:vm-${vmid + 50}-disk-1,size=1G`,
    });
    expect(clone.lock).toBeUndefined();
    expect(clone.net0).toMatch(/^virtio=BC:24:11:[0-9A-F:]{8},bridge=vmbr0,tag=10$/);
    expect(clone.net0).not.toBe(source.net0);
    expect(clone.smbios1).not.toBe(source.smbios1);
    await run('qemu-img', ['compare', '-q', file(volume(source.scsi0)), file(volume(clone.scsi0))]);
    expect(await hasPattern(file(volume(clone.scsi0)), 'raw', 0x5a, 1024 * 1024)).toBe(true);
    expect(sim.log(upid)).toEqual(
      expect.arrayContaining([
        `creating a clone of VM ${vmid} with ID ${vmid + 50}`,
        `create full clone of drive scsi0 (${volume(source.scsi0)})`,
        `allocated target volume 'local-lvm:vm-${vmid + 50}-disk-1'`,
        expect.stringMatching(/^transferred 1\.00 GiB of 1\.00 GiB \(100\.00%\)$/),
      ]),
    );
    const members = (await sim.ok('GET', `/pools?poolid=${SAMPLE_POOL}`))[0].members.map(
      (m: { vmid: number }) => m.vmid,
    );
    expect(members).toContain(vmid + 50);

    // Linked clones only from templates; full clones of running VMs are fine.
    const linked = await fx.raw('POST', `/api2/json/nodes/pve1/qemu/${vmid}/clone`, {
      form: { newid: String(vmid + 51), full: '0' },
    });
    expect([linked.status, linked.body.message]).toEqual([
      500,
      `Linked clone feature is not supported for '${volume(source.efidisk0)}' (efidisk0)\n`,
    ]);
    const taken = await fx.raw('POST', `/api2/json/nodes/pve1/qemu/${vmid}/clone`, {
      form: { newid: String(vmid + 50) },
    });
    expect(taken.body.message).toBe(`unable to create VM ${vmid + 50}: config file already exists\n`);
    const noImages = await fx.raw('POST', `/api2/json/nodes/pve1/qemu/${vmid}/clone`, {
      form: { newid: String(vmid + 51), storage: 'nope' },
    });
    expect(noImages.body.message).toBe("storage 'nope' does not exist\n");
  });

  it('a template: base volumes, read-only, no start; linked clones on local-lvm (thin copies) and on a directory (qcow2 overlays)', async () => {
    const tmpl = next++;
    await sim.createVm(tmpl, {
      name: 'golden',
      scsi0: 'local-lvm:1',
      scsi1: 'local:1,format=raw',
      net0: 'virtio,bridge=vmbr0',
    });
    const before = await config(tmpl);
    await writePattern(file(volume(before.scsi0)), 'raw', 0x61);
    await writePattern(file(volume(before.scsi1)), 'raw', 0x62);
    const upid = await sim.ok('POST', `/nodes/pve1/qemu/${tmpl}/template`);
    expect(upid).toContain(`:qmtemplate:${tmpl}:`);
    expect(await sim.finish(upid)).toBe('OK');
    const t = await config(tmpl);
    expect(t).toMatchObject({
      template: 1,
      scsi0: `local-lvm:base-${tmpl}-disk-0,size=1G`,
      scsi1: `local:${tmpl}/base-${tmpl}-disk-0.raw,size=1G`,
    });
    expect(statSync(file(volume(t.scsi1))).mode & 0o222).toBe(0);
    expect(
      (await sim.ok('GET', '/cluster/resources?type=vm')).find((r: { vmid: number }) => r.vmid === tmpl).template,
    ).toBe(1);
    expect(await sim.task('POST', `/nodes/pve1/qemu/${tmpl}/status/start`)).toBe(
      "you can't start a vm if it's a template",
    );
    expect((await fx.raw('POST', `/api2/json/nodes/pve1/qemu/${tmpl}/template`)).body.message).toBe(
      "you can't convert a template to a template\n",
    );
    expect(await sim.ok('GET', `/nodes/pve1/qemu/${tmpl}/feature?feature=clone`)).toEqual({
      hasFeature: 1,
      nodes: ['pve1'],
    });

    const linked = tmpl + 50;
    const clone = await sim.ok('POST', `/nodes/pve1/qemu/${tmpl}/clone`, {
      newid: String(linked),
      name: 'from-golden',
    });
    expect(await sim.finish(clone)).toBe('OK');
    const c = await config(linked);
    expect(c).toMatchObject({
      name: 'from-golden',
      scsi0: `local-lvm:vm-${linked}-disk-0,size=1G`,
      scsi1: `local:${tmpl}/base-${tmpl}-disk-0.raw/${linked}/vm-${linked}-disk-0.qcow2,size=1G`,
    });
    expect(c.template).toBeUndefined();
    expect(sim.log(clone)).toEqual(
      expect.arrayContaining([`create linked clone of drive scsi1 (local:${tmpl}/base-${tmpl}-disk-0.raw)`]),
    );
    const info = JSON.parse((await run('qemu-img', ['info', '--output=json', file(volume(c.scsi1))])).stdout);
    expect([info.format, info['backing-filename']]).toEqual(['qcow2', `../${tmpl}/base-${tmpl}-disk-0.raw`]);
    expect(await hasPattern(file(volume(c.scsi0)), 'raw', 0x61)).toBe(true);
    expect(await hasPattern(file(volume(c.scsi1)), 'qcow2', 0x62)).toBe(true);
    const content = (await sim.ok('GET', `/nodes/pve1/storage/local/content?vmid=${linked}`)).map(
      (e: { volid: string }) => e.volid,
    );
    expect(content).toEqual([volume(c.scsi1)]);

    // The linked clone writes to its overlay; the base stays as it was.
    await writePattern(file(volume(c.scsi1)), 'qcow2', 0x63);
    expect(await hasPattern(file(volume(t.scsi1)), 'raw', 0x62)).toBe(true);
    // A linked clone must not take a storage; a directory base cannot go while the clone uses it.
    const withStorage = await fx.raw('POST', `/api2/json/nodes/pve1/qemu/${tmpl}/clone`, {
      form: { newid: String(linked + 1), full: '0', storage: 'local-lvm' },
    });
    expect(withStorage.body.message).toBe("parameter 'storage' not allowed for linked clones\n");
    expect(await sim.task('DELETE', `/nodes/pve1/qemu/${tmpl}`)).toBe(
      `base volume '${volume(t.scsi1)}' is still in use by linked cloned`,
    );
    expect(existsSync(file(volume(t.scsi1)))).toBe(true);
    expect(await sim.task('DELETE', `/nodes/pve1/qemu/${linked}`)).toBe('OK');
    expect(await sim.task('DELETE', `/nodes/pve1/qemu/${tmpl}`)).toBe('OK');
    expect(existsSync(file(volume(t.scsi0)))).toBe(false);
  });

  it('a full clone of a template to another storage and format; a clone of a snapshot', async () => {
    const tmpl = next++;
    await sim.createVm(tmpl, { scsi0: 'local-lvm:1' });
    await writePattern(file(volume((await config(tmpl)).scsi0)), 'raw', 0x71);
    expect(await sim.task('POST', `/nodes/pve1/qemu/${tmpl}/template`)).toBe('OK');
    expect(
      await sim.task('POST', `/nodes/pve1/qemu/${tmpl}/clone`, {
        newid: String(tmpl + 50),
        full: '1',
        storage: 'local',
        format: 'qcow2',
      }),
    ).toBe('OK');
    const full = await config(tmpl + 50);
    expect(full.scsi0).toBe(`local:${tmpl + 50}/vm-${tmpl + 50}-disk-0.qcow2,size=1G`);
    expect(await hasPattern(file(volume(full.scsi0)), 'qcow2', 0x71)).toBe(true);

    // A clone of a snapshot has the disk as the snapshot holds it.
    const vmid = tmpl + 50;
    expect(await sim.task('POST', `/nodes/pve1/qemu/${vmid}/snapshot`, { snapname: 'then' })).toBe('OK');
    await writePattern(file(volume(full.scsi0)), 'qcow2', 0x72);
    expect(
      await sim.task('POST', `/nodes/pve1/qemu/${vmid}/clone`, { newid: String(vmid + 1), snapname: 'then' }),
    ).toBe('OK');
    const fromSnap = await config(vmid + 1);
    expect(fromSnap.parent).toBeUndefined();
    expect(await hasPattern(file(volume(fromSnap.scsi0)), 'qcow2', 0x71)).toBe(true);
    const missing = await fx.raw('POST', `/api2/json/nodes/pve1/qemu/${vmid}/clone`, {
      form: { newid: String(vmid + 2), snapname: 'gone' },
    });
    expect(missing.body.message).toBe("snapshot 'gone' does not exist\n");
  });

  it("to another node: only a VM on shared storage; the clone is that node's VM", async () => {
    const local = next++;
    await sim.createVm(local, { scsi0: 'local-lvm:1' });
    const refused = await fx.raw('POST', `/api2/json/nodes/pve1/qemu/${local}/clone`, {
      form: { newid: String(local + 50), target: 'pve2' },
    });
    expect([refused.status, refused.body.message]).toEqual([
      500,
      `can't clone VM to node 'pve2' (VM uses local storage)\n`,
    ]);
    const nonShared = await fx.raw('POST', `/api2/json/nodes/pve1/qemu/${local}/clone`, {
      form: { newid: String(local + 50), target: 'pve2', storage: 'local-lvm' },
    });
    expect(nonShared.body.message).toBe("can't clone to non-shared storage 'local-lvm'\n");

    const shared = next++;
    await sim.createVm(shared, { scsi0: 'nfs-migration:1,format=qcow2' });
    await writePattern(file(volume((await config(shared)).scsi0)), 'qcow2', 0x7e);
    expect(await sim.ok('GET', `/nodes/pve1/qemu/${shared}/feature?feature=copy`)).toEqual({
      hasFeature: 1,
      nodes: ['pve1', 'pve2', 'pve3'],
    });
    expect(
      await sim.task('POST', `/nodes/pve1/qemu/${shared}/clone`, {
        newid: String(shared + 50),
        target: 'pve2',
        storage: 'nfs-migration',
      }),
    ).toBe('OK');
    const clone = await config(shared + 50, 'pve2');
    expect(clone.scsi0).toBe(`nfs-migration:${shared + 50}/vm-${shared + 50}-disk-0.qcow2,size=1G`);
    expect(await hasPattern(file(volume(clone.scsi0), 'pve2'), 'qcow2', 0x7e)).toBe(true);
    const elsewhere = await fx.raw('GET', `/api2/json/nodes/pve1/qemu/${shared + 50}/config`);
    expect(elsewhere.body.message).toBe(
      `Configuration file 'nodes/pve1/qemu-server/${shared + 50}.conf' does not exist\n`,
    );
  });
});
