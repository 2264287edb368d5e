import { existsSync, readdirSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { FLAVOURS, startSim, type SimFixture } from '../../helpers/proxmox';
import { hasPattern, simApi, writePattern, type SimApi } from '../../helpers/sim-api';

const run = promisify(execFile);

/**
 * VM snapshots as qemu-server takes them: the list with `current`, `parent`, `snaptime`, `vmstate`; the
 * `snapshot`/`rollback`/`snapshot-delete` locks; thin snapshots on local-lvm and qcow2 internal snapshots on
 * a directory storage, whose rollback brings the disk's bytes and the config back; RAM saved for a running
 * (simulated) VM and resumed by the rollback; delete re-parents; PVE's refusals word for word.
 */
describe.each(FLAVOURS)('snapshots, PVE %s', (flavour) => {
  let fx: SimFixture;
  let sim: SimApi;
  let next = 500;
  const file = (volid: string, node = 'pve1') => fx.sim.cluster.storages.resolve(volid, node).file;
  const disk0 = async (vmid: number) =>
    (await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/config`)).scsi0.split(',')[0] as string;

  beforeAll(async () => {
    fx = await startSim(flavour);
    sim = simApi(fx);
  });
  afterAll(() => fx.stop());

  it('a thin-volume snapshot: listed with parent and snaptime, rollback restores the disk bytes and the config', async () => {
    const vmid = next++;
    await sim.createVm(vmid, { name: 'snappy', memory: '1024', scsi0: 'local-lvm:1', net0: 'virtio,bridge=vmbr0' });
    const volid = await disk0(vmid);
    await writePattern(file(volid), 'raw', 0x11);
    const before = await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/config`);

    const upid = await sim.ok('POST', `/nodes/pve1/qemu/${vmid}/snapshot`, {
      snapname: 'first',
      description: 'before the upgrade',
    });
    expect(upid).toMatch(new RegExp(`^UPID:pve1:[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{8}:qmsnapshot:${vmid}:`));
    expect(await sim.finish(upid)).toBe('OK');
    expect(sim.log(upid)).toEqual(
      expect.arrayContaining([
        `snapshotting 'drive-scsi0' (${volid})`,
        `  Logical volume "snap_${volid.split(':')[1]}_first" created.`,
      ]),
    );

    const list = await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/snapshot`);
    const after = await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/config`);
    expect(list).toEqual([
      { name: 'first', snaptime: expect.any(Number), vmstate: 0, description: 'before the upgrade' },
      { name: 'current', digest: after.digest, running: 0, description: 'You are here!', parent: 'first' },
    ]);
    expect(Math.abs(list[0].snaptime - Date.now() / 1000)).toBeLessThan(60);
    expect(after.parent).toBe('first');
    expect(after.digest).not.toBe(before.digest); // the file now has a [first] section

    // Change disk and config, then roll back.
    await writePattern(file(volid), 'raw', 0x22);
    await sim.ok('PUT', `/nodes/pve1/qemu/${vmid}/config`, { memory: '4096', scsi1: 'local-lvm:1' });
    const added = (await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/config`)).scsi1.split(',')[0];
    const rollback = await sim.ok('POST', `/nodes/pve1/qemu/${vmid}/snapshot/first/rollback`);
    expect(rollback).toContain(`:qmrollback:${vmid}:`);
    expect(await sim.finish(rollback)).toBe('OK');
    expect(await hasPattern(file(volid), 'raw', 0x11)).toBe(true);
    const restored = await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/config`);
    expect(restored).toMatchObject({
      memory: before.memory,
      scsi0: before.scsi0,
      net0: before.net0,
      parent: 'first',
      unused0: added,
    });
    expect(restored.scsi1).toBeUndefined();
    expect(restored.vmgenid).not.toBe(before.vmgenid); // a new VM generation after a rollback
  });

  it("holds `lock: snapshot` while the task runs, and PVE's refusals answer synchronously or fail the task", async () => {
    const vmid = next++;
    await sim.createVm(vmid, { scsi0: 'local-lvm:1' });
    fx.sim.cluster.settings.taskMs = 400;
    try {
      const upid = await sim.ok('POST', `/nodes/pve1/qemu/${vmid}/snapshot`, { snapname: 'slow' });
      await new Promise((r) => setTimeout(r, 100));
      expect((await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/config`)).lock).toBe('snapshot');
      expect((await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/status/current`)).lock).toBe('snapshot');
      const busy = await fx.raw('PUT', `/api2/json/nodes/pve1/qemu/${vmid}/config`, { form: { memory: '2048' } });
      expect([busy.status, busy.body.message]).toEqual([500, 'VM is locked (snapshot)\n']);
      expect(await sim.finish(upid)).toBe('OK');
    } finally {
      fx.sim.cluster.settings.taskMs = 5;
    }
    for (const name of ['current', 'PENDING']) {
      const r = await fx.raw('POST', `/api2/json/nodes/pve1/qemu/${vmid}/snapshot`, { form: { snapname: name } });
      expect([r.status, r.body.message]).toEqual([
        500,
        `unable to use snapshot name '${name.toLowerCase()}' (reserved name)\n`,
      ]);
    }
    expect(await sim.task('POST', `/nodes/pve1/qemu/${vmid}/snapshot`, { snapname: 'slow' })).toBe(
      "snapshot name 'slow' already used",
    );
    expect(await sim.task('POST', `/nodes/pve1/qemu/${vmid}/snapshot/nope/rollback`)).toBe(
      "snapshot 'nope' does not exist",
    );
    expect(await sim.task('DELETE', `/nodes/pve1/qemu/${vmid}/snapshot/nope`)).toBe("snapshot 'nope' does not exist");
    const bad = await fx.raw('POST', `/api2/json/nodes/pve1/qemu/${vmid}/snapshot`, { form: { snapname: '1st' } });
    expect([bad.status, bad.body.errors]).toEqual([
      400,
      { snapname: "invalid format - invalid configuration ID '1st'" },
    ]);
    // A raw file on a directory storage has no snapshots (pve-storage: qcow2 only).
    const raw = next++;
    await sim.createVm(raw, { scsi0: 'local:1,format=raw' });
    expect(await sim.task('POST', `/nodes/pve1/qemu/${raw}/snapshot`, { snapname: 'never' })).toBe(
      'snapshot feature is not available',
    );
    expect((await sim.ok('GET', `/nodes/pve1/qemu/${raw}/config`)).lock).toBeUndefined();
    expect(await sim.ok('GET', `/nodes/pve1/qemu/${raw}/feature?feature=snapshot`)).toEqual({
      hasFeature: 0,
      nodes: ['pve1'],
    });
  });

  it('a qcow2 disk on a directory storage: an internal snapshot (qemu-img), rolled back and deleted', async () => {
    const vmid = next++;
    await sim.createVm(vmid, { scsi0: 'local:1,format=qcow2' });
    const volid = await disk0(vmid);
    expect(await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/feature?feature=snapshot`)).toEqual({
      hasFeature: 1,
      nodes: ['pve1'],
    });
    await writePattern(file(volid), 'qcow2', 0x33);
    expect(await sim.task('POST', `/nodes/pve1/qemu/${vmid}/snapshot`, { snapname: 'base' })).toBe('OK');
    const { stdout } = await run('qemu-img', ['snapshot', '-l', file(volid)]);
    expect(stdout).toMatch(/\sbase\s/);
    await writePattern(file(volid), 'qcow2', 0x44);
    expect(await sim.task('POST', `/nodes/pve1/qemu/${vmid}/snapshot/base/rollback`)).toBe('OK');
    expect(await hasPattern(file(volid), 'qcow2', 0x33)).toBe(true);
    expect(await sim.task('DELETE', `/nodes/pve1/qemu/${vmid}/snapshot/base`)).toBe('OK');
    expect((await run('qemu-img', ['snapshot', '-l', file(volid)])).stdout).not.toMatch(/\sbase\s/);
    const config = await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/config`);
    expect(config.parent).toBeUndefined();
    expect(Object.keys(config).filter((k) => k.startsWith('unused'))).toEqual([]);
  });

  it('with vmstate, a running (simulated) VM: the state volume at PVE\'s size, RAM "resumed" by the rollback', async () => {
    const vmid = next++;
    await sim.createVm(vmid, { memory: '512', scsi0: 'local-lvm:1' });
    expect(await sim.task('POST', `/nodes/pve1/qemu/${vmid}/status/start`)).toBe('OK');
    const upid = await sim.ok('POST', `/nodes/pve1/qemu/${vmid}/snapshot`, { snapname: 'live', vmstate: '1' });
    expect(await sim.finish(upid)).toBe('OK');
    expect(sim.log(upid)[0]).toBe("saving VM state and RAM using storage 'local-lvm'");
    const [snap] = await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/snapshot`);
    expect(snap).toMatchObject({ name: 'live', vmstate: 1 });
    const section = await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/snapshot/live/config`);
    expect(section).toMatchObject({
      vmstate: `local-lvm:vm-${vmid}-state-live`,
      runningmachine: expect.stringMatching(/^pc-i440fx-\d+\.\d+\+pve0$/),
      snaptime: snap.snaptime,
    });
    const state = await run('qemu-img', ['info', '--output=json', file(section.vmstate)]);
    expect(JSON.parse(state.stdout)['virtual-size']).toBe((512 * 2 + 500) * 1024 * 1024);
    const content = await sim.ok('GET', `/nodes/pve1/storage/local-lvm/content?vmid=${vmid}`);
    expect(content.map((c: { volid: string }) => c.volid).sort()).toEqual([
      `local-lvm:vm-${vmid}-disk-0`,
      section.vmstate,
    ]);

    // Rolling back stops the VM and starts it again from the saved state.
    expect(await sim.task('POST', `/nodes/pve1/qemu/${vmid}/status/stop`)).toBe('OK');
    expect(await sim.task('POST', `/nodes/pve1/qemu/${vmid}/snapshot/live/rollback`)).toBe('OK');
    expect((await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/status/current`)).status).toBe('running');
    const config = await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/config`);
    expect(config.runningmachine).toBeUndefined();
    expect(config.vmstate).toBeUndefined();

    // Deleting the snapshot removes the state volume.
    expect(await sim.task('DELETE', `/nodes/pve1/qemu/${vmid}/snapshot/live`)).toBe('OK');
    expect(existsSync(file(section.vmstate))).toBe(false);
    // A stopped VM's snapshot "with vmstate" saves none (there is no RAM to save).
    expect(await sim.task('POST', `/nodes/pve1/qemu/${vmid}/status/stop`)).toBe('OK');
    expect(await sim.task('POST', `/nodes/pve1/qemu/${vmid}/snapshot`, { snapname: 'cold', vmstate: '1' })).toBe('OK');
    expect((await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/snapshot`))[0]).toMatchObject({ name: 'cold', vmstate: 0 });
  });

  it("a chain: delete re-parents the child and `current`; config?snapshot=, the snapshot's config and its description", async () => {
    const vmid = next++;
    await sim.createVm(vmid, { scsi0: 'local-lvm:1', cores: '1' });
    expect(await sim.task('POST', `/nodes/pve1/qemu/${vmid}/snapshot`, { snapname: 'one' })).toBe('OK');
    await sim.ok('PUT', `/nodes/pve1/qemu/${vmid}/config`, { cores: '2' });
    expect(await sim.task('POST', `/nodes/pve1/qemu/${vmid}/snapshot`, { snapname: 'two' })).toBe('OK');
    await sim.ok('PUT', `/nodes/pve1/qemu/${vmid}/config`, { cores: '3' });
    const parents = async () =>
      Object.fromEntries(
        (await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/snapshot`)).map((s: { name: string; parent?: string }) => [
          s.name,
          s.parent,
        ]),
      );
    expect(await parents()).toEqual({ one: undefined, two: 'one', current: 'two' });

    const atA = await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/config?snapshot=one`);
    expect(atA).toMatchObject({
      cores: 1,
      snaptime: expect.any(Number),
      digest: expect.stringMatching(/^[0-9a-f]{40}$/),
    });
    const both = await fx.raw('GET', `/api2/json/nodes/pve1/qemu/${vmid}/config?snapshot=one&current=1`);
    expect([both.status, both.body.errors]).toEqual([
      400,
      {
        snapshot: "cannot use 'snapshot' parameter with 'current'",
        current: "cannot use 'snapshot' parameter with 'current'",
      },
    ]);
    expect(await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/snapshot/two`)).toEqual([
      { cmd: 'rollback' },
      { cmd: 'config' },
    ]);
    expect(await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/snapshot/two/config`)).toMatchObject({
      cores: 2,
      parent: 'one',
    });
    expect(
      await sim.ok('PUT', `/nodes/pve1/qemu/${vmid}/snapshot/two/config`, { description: 'two cores' }),
    ).toBeNull();
    expect((await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/snapshot`))[1]).toMatchObject({
      name: 'two',
      description: 'two cores',
    });

    const upid = await sim.ok('DELETE', `/nodes/pve1/qemu/${vmid}/snapshot/one`);
    expect(upid).toContain(`:qmdelsnapshot:${vmid}:`);
    expect(await sim.finish(upid)).toBe('OK');
    expect(await parents()).toEqual({ two: undefined, current: 'two' });
    expect(await sim.task('DELETE', `/nodes/pve1/qemu/${vmid}/snapshot/two`)).toBe('OK');
    expect(await parents()).toEqual({ current: undefined });
    const thin = readdirSync(fx.sim.cluster.storages.folder(fx.sim.cluster.storages.get('local-lvm')!, 'pve1'));
    expect(thin.filter((f) => f.startsWith(`snap_vm-${vmid}-`))).toEqual([]);
  });

  it('a template cannot be snapshotted; a VM with snapshots cannot become one; destroy removes its snapshots', async () => {
    const vmid = next++;
    await sim.createVm(vmid, { scsi0: 'local-lvm:1' });
    expect(await sim.task('POST', `/nodes/pve1/qemu/${vmid}/snapshot`, { snapname: 'keep' })).toBe('OK');
    const refused = await fx.raw('POST', `/api2/json/nodes/pve1/qemu/${vmid}/template`);
    expect([refused.status, refused.body.message]).toEqual([
      500,
      'unable to create template, because VM contains snapshots\n',
    ]);
    expect(await sim.task('POST', `/nodes/pve1/qemu/${vmid}/snapshot`, { snapname: 'ram', vmstate: '1' })).toBe('OK');
    expect(await sim.task('DELETE', `/nodes/pve1/qemu/${vmid}`)).toBe('OK');
    const thin = readdirSync(fx.sim.cluster.storages.folder(fx.sim.cluster.storages.get('local-lvm')!, 'pve1'));
    expect(thin.filter((f) => f.includes(`-${vmid}-`))).toEqual([]);

    const tmpl = next++;
    await sim.createVm(tmpl, { scsi0: 'local-lvm:1' });
    expect(await sim.task('POST', `/nodes/pve1/qemu/${tmpl}/template`)).toBe('OK');
    expect(await sim.task('POST', `/nodes/pve1/qemu/${tmpl}/snapshot`, { snapname: 'later' })).toBe(
      "you can't take a snapshot if it's a template",
    );
  });
});
