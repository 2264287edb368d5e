import { rmSync, statfsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SAMPLE_POOL, SAMPLE_THIN_POOLS } from '../../../lab/proxmox-sim/sample-cluster';
import { VERSIONS } from '../../../lab/proxmox-sim/cluster';
import { FLAVOURS, startSim, type SimFixture } from '../../helpers/proxmox';

/**
 * The read-only endpoints real clients call answer with real figures: node status, storage space (statfs
 * of the storage's folder), guest rows, pools, indexes, snapshots. (That every route answers in the
 * shape and JSON types PVE gives: answer-types.test.ts.)
 */
const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

describe.each(FLAVOURS)('read-only endpoints, PVE %s', (flavour) => {
  let fx: SimFixture;
  const vmid = 321;
  const get = async (apiPath: string) => {
    const r = await fx.raw('GET', `/api2/json${apiPath}`);
    expect([apiPath, r.status, r.body?.message]).toEqual([apiPath, 200, undefined]);
    return r.body.data;
  };

  beforeAll(async () => {
    fx = await startSim(flavour);
    const form = {
      vmid: String(vmid),
      name: 'walker',
      memory: '2048',
      sockets: '2',
      cores: '2',
      scsi0: 'local-lvm:1',
      ide2: 'local:iso/debian-12.8.0-amd64-netinst.iso,media=cdrom',
      net0: 'virtio,bridge=vmbr0',
      pool: SAMPLE_POOL,
    };
    const created = await fx.raw('POST', '/api2/json/nodes/pve1/qemu', { form });
    expect([created.status, created.body.message]).toEqual([200, undefined]);
    await fx.sim.cluster.tasks.idle();
    expect(fx.sim.cluster.tasks.get(created.body.data)!.exitstatus).toBe('OK');
  });
  afterAll(() => fx.stop());

  it('/cluster/status: the cluster, then each node with its id, address and the answering node marked local', async () => {
    expect(await get('/cluster/status')).toEqual([
      { type: 'cluster', id: 'cluster', name: 'ferrylab', nodes: 3, quorate: 1, version: 3 },
      { type: 'node', id: 'node/pve1', name: 'pve1', nodeid: 1, ip: '192.0.2.11', local: 1, online: 1, level: '' },
      { type: 'node', id: 'node/pve2', name: 'pve2', nodeid: 2, ip: '192.0.2.12', local: 0, online: 1, level: '' },
      { type: 'node', id: 'node/pve3', name: 'pve3', nodeid: 3, ip: '192.0.2.13', local: 0, online: 1, level: '' },
    ]);
  });

  it("/nodes/{node}/status: the node's hardware, version, kernel and root file system; used memory counts running guests", async () => {
    const before = await get('/nodes/pve2/status');
    expect(before).toMatchObject({
      cpuinfo: { cpus: 8, sockets: 1, cores: 4, model: expect.stringContaining('Xeon') },
      memory: { total: 32 * GiB },
      pveversion: `pve-manager/${VERSIONS[flavour].version}/${VERSIONS[flavour].repoid}`,
      kversion: expect.stringMatching(/^Linux \d+\.\d+\.\d+-\d+-pve #1 SMP/),
      'current-kernel': { sysname: 'Linux', machine: 'x86_64' },
      'boot-info': { mode: 'efi' },
    });
    expect(before.loadavg).toHaveLength(3);
    expect(before.uptime).toBeGreaterThan(0);
    expect(before.memory.used + before.memory.free).toBe(before.memory.total);
    expect('available' in before.memory).toBe(flavour === '9.1'); // added to the 9.x API
    expect(before.rootfs.total).toBe(statfsSync(fx.stateDir).blocks * statfsSync(fx.stateDir).bsize);

    // A 2 GiB VM running on pve2 (set directly: the power endpoints belong to the QEMU runtime).
    const form = { vmid: '322', memory: '2048' };
    expect((await fx.raw('POST', '/api2/json/nodes/pve2/qemu', { form })).status).toBe(200);
    await fx.sim.cluster.tasks.idle();
    const vm = fx.sim.cluster.vms.get(322)!;
    Object.assign(vm, { status: 'running', startedMs: Date.now() - 5000 });
    try {
      const after = await get('/nodes/pve2/status');
      expect(after.memory.used - before.memory.used).toBe(2048 * MiB);
      const row = (await get('/nodes/pve2/qemu')).find((r: { vmid: number }) => r.vmid === 322);
      expect(row).toMatchObject({ status: 'running', uptime: expect.any(Number), pid: expect.any(Number) });
      expect(row.uptime).toBeGreaterThanOrEqual(5);
    } finally {
      Object.assign(vm, { status: 'stopped', startedMs: undefined });
    }
  });

  it("storage status and lists: total/used/avail of the storage folder's file system, with type, content and flags", async () => {
    for (const [storage, type, shared] of [
      ['local', 'dir', 0],
      ['nfs-migration', 'nfs', 1],
    ] as const) {
      const status = await get(`/nodes/pve1/storage/${storage}/status`);
      const spec = fx.sim.cluster.storages.get(storage)!;
      const st = statfsSync(fx.sim.cluster.storages.folder(spec, 'pve1'));
      expect(status).toMatchObject({
        type,
        shared,
        active: 1,
        enabled: 1,
        content: [...spec.content].sort().join(','),
        total: st.blocks * st.bsize,
      });
      // Other processes write to the same file system: the free space may move a little between reads.
      expect(Math.abs(status.avail - st.bavail * st.bsize)).toBeLessThan(256 * MiB);
      expect(Math.abs(status.used - (st.blocks - st.bfree) * st.bsize)).toBeLessThan(256 * MiB);
    }
    // local-lvm is a thin pool of its own size per node: used is what its volumes take on disk.
    for (const [node, size] of Object.entries(SAMPLE_THIN_POOLS)) {
      const thin = await get(`/nodes/${node}/storage/local-lvm/status`);
      expect(thin).toMatchObject({ type: 'lvmthin', shared: 0, total: size });
      expect(thin.used + thin.avail).toBe(size);
    }
    const before = await get('/nodes/pve2/storage/local-lvm/status');
    const volume = path.join(
      fx.sim.cluster.storages.folder(fx.sim.cluster.storages.get('local-lvm')!, 'pve2'),
      'vm-999-disk-0.raw',
    );
    writeFileSync(volume, Buffer.alloc(4 * MiB, 1));
    try {
      const thin = await get('/nodes/pve2/storage/local-lvm/status');
      expect([thin.used - before.used, thin.avail]).toEqual([4 * MiB, before.avail - 4 * MiB]);
    } finally {
      rmSync(volume);
    }
    const list = await get('/nodes/pve1/storage');
    expect(list.map((s: { storage: string }) => s.storage)).toEqual(['local', 'local-lvm', 'nfs-migration']);
    expect(list[0]).toMatchObject({
      total: expect.any(Number),
      used: expect.any(Number),
      avail: expect.any(Number),
      used_fraction: expect.any(Number),
    });
    expect(list[0].total).toBeGreaterThan(1 << 20);
    const missing = await fx.raw('GET', '/api2/json/nodes/pve1/storage/nope/status');
    expect([missing.status, missing.body.errors]).toEqual([400, { storage: 'No such storage.' }]);

    const resources = await get('/cluster/resources?type=storage');
    expect(resources.find((r: { id: string }) => r.id === 'storage/pve1/local')).toMatchObject({
      plugintype: 'dir',
      status: 'available',
      maxdisk: list[0].total,
      disk: expect.any(Number),
    });
  });

  it('/storage lists storage.cfg: each storage with its type, content and the settings of its type', async () => {
    const storages = await get('/storage');
    expect(storages.map((s: { storage: string; type: string }) => [s.storage, s.type])).toEqual([
      ['local', 'dir'],
      ['local-lvm', 'lvmthin'],
      ['nfs-migration', 'nfs'],
    ]);
    expect(storages[0]).toMatchObject({
      content: 'backup,images,import,iso,vztmpl',
      path: expect.any(String),
      digest: expect.stringMatching(/^[0-9a-f]{40}$/),
    });
    expect(storages[1]).toMatchObject({ vgname: 'pve', thinpool: 'data' });
    expect(storages[2]).toMatchObject({ shared: 1, server: expect.any(String), export: expect.any(String) });
    expect(await get('/storage?type=nfs')).toHaveLength(1);
  });

  it('VM rows carry maxdisk (the boot disk), maxmem in bytes, cpus (sockets*cores, or vcpus) and uptime', async () => {
    const onNode = (await get('/nodes/pve1/qemu')).find((r: { vmid: number }) => r.vmid === vmid);
    expect(onNode).toMatchObject({
      vmid,
      name: 'walker',
      status: 'stopped',
      maxdisk: GiB,
      maxmem: 2048 * MiB,
      cpus: 4,
      uptime: 0,
      mem: 0,
      cpu: 0,
    });
    const resource = (await get('/cluster/resources?type=vm')).find((r: { vmid: number }) => r.vmid === vmid);
    expect(resource).toMatchObject({
      id: `qemu/${vmid}`,
      type: 'qemu',
      node: 'pve1',
      name: 'walker',
      maxdisk: GiB,
      maxmem: 2048 * MiB,
      maxcpu: 4,
      uptime: 0,
      template: 0,
      pool: SAMPLE_POOL,
    });
    // qemu-server set the boot order at create (first disk, first CD-ROM, NICs): maxdisk reads it.
    const config = await get(`/nodes/pve1/qemu/${vmid}/config`);
    expect(config.boot).toBe('order=scsi0;ide2;net0');

    const put = await fx.raw('PUT', `/api2/json/nodes/pve1/qemu/${vmid}/config`, { form: { vcpus: '3' } });
    expect(put.status).toBe(200);
    expect((await get('/nodes/pve1/qemu')).find((r: { vmid: number }) => r.vmid === vmid).cpus).toBe(3);
    await fx.raw('PUT', `/api2/json/nodes/pve1/qemu/${vmid}/config`, { form: { delete: 'vcpus' } });
  });

  it("a node-only listing, as proxmox_vm_info does it: /cluster/resources, then each node's qemu AND lxc lists", async () => {
    const cluster: Array<Record<string, unknown>> = await get('/cluster/resources?type=vm');
    const merged: Array<Record<string, unknown>> = [];
    for (const type of ['qemu', 'lxc']) {
      const wanted = cluster.filter((r) => r.type === type && r.node === 'pve1');
      for (const row of await get(`/nodes/pve1/${type}`)) {
        const vm = wanted.find((w) => Number(w.vmid) === Number(row.vmid));
        if (vm) merged.push({ ...vm, ...row, template: Boolean(vm.template) });
      }
    }
    expect(merged.map((m) => [m.type, m.vmid, m.name, m.status])).toEqual(
      expect.arrayContaining([
        ['qemu', vmid, 'walker', 'stopped'],
        ['lxc', 900, 'ct-dns', 'running'],
      ]),
    );
    const ct = merged.find((m) => m.vmid === 900)!;
    expect(ct).toMatchObject({ maxmem: 512 * MiB, maxswap: 512 * MiB, maxdisk: 8 * GiB, cpus: 1, template: false });
    expect(ct.uptime).toEqual(expect.any(Number));
  });

  it('pools: the list, one pool with its members; a new pool; an unknown pool', async () => {
    expect(await get('/pools')).toEqual([{ poolid: SAMPLE_POOL, comment: 'VMs migrated from vSphere' }]);
    const [pool] = await get(`/pools?poolid=${SAMPLE_POOL}`);
    expect(pool.members).toEqual([
      expect.objectContaining({ id: `qemu/${vmid}`, type: 'qemu', vmid, node: 'pve1', name: 'walker' }),
    ]);
    expect((await fx.raw('POST', '/api2/json/pools', { form: { poolid: 'wave1' } })).status).toBe(200);
    expect((await fx.raw('POST', '/api2/json/pools', { form: { poolid: 'wave1' } })).body.message).toBe(
      "create pool failed: pool 'wave1' already exists\n",
    );
    expect((await get('/pools')).map((p: { poolid: string }) => p.poolid)).toEqual([SAMPLE_POOL, 'wave1']);
    expect((await fx.raw('GET', '/api2/json/pools?poolid=nope')).body.message).toBe("pool 'nope' does not exist\n");
    const bad = await fx.raw('POST', '/api2/json/nodes/pve1/qemu', { form: { vmid: '330', pool: 'nope' } });
    expect([bad.status, bad.body.message]).toEqual([403, "Permission check failed (pool 'nope' does not exist)\n"]);
  });

  it("directory indexes of a VM and of its status commands, and the snapshot list with PVE's `current` entry", async () => {
    const subdirs = (rows: Array<{ subdir: string }>) => rows.map((r) => r.subdir);
    expect(subdirs(await get(`/nodes/pve1/qemu/${vmid}`))).toEqual(
      expect.arrayContaining([
        'config',
        'pending',
        'status',
        'unlink',
        'resize',
        'move',
        'agent',
        'snapshot',
        'firewall',
      ]),
    );
    expect(subdirs(await get(`/nodes/pve1/qemu/${vmid}/status`))).toEqual([
      'current',
      'start',
      'stop',
      'reset',
      'shutdown',
      'suspend',
      'reboot',
    ]);
    const config = await get(`/nodes/pve1/qemu/${vmid}/config`);
    expect(await get(`/nodes/pve1/qemu/${vmid}/snapshot`)).toEqual([
      { name: 'current', digest: config.digest, running: 0, description: 'You are here!' },
    ]);
    const missing = await fx.raw('GET', '/api2/json/nodes/pve1/qemu/999/status');
    expect(missing.body.message).toBe("Configuration file 'nodes/pve1/qemu-server/999.conf' does not exist\n");
  });
});
