import { existsSync, readFileSync } from 'node:fs';
import { FLAVOURS, startSim, type SimFixture } from '../../helpers/proxmox';
import { simApi, type SimApi } from '../../helpers/sim-api';

/**
 * The rest of a VM's endpoints as qemu-server answers them: the cloud-init settings pending since the
 * drive was generated, regenerated on request, and the generated config dumped; RRD statistics at each
 * flavour's resolution; the monitor with HMPPerms' refusals and sendkey; the guest agent commands with
 * parameters, which a VM without an agent refuses as PVE does.
 */
describe.each(FLAVOURS)('VM extras, PVE %s', (flavour) => {
  let fx: SimFixture;
  let sim: SimApi;
  const vmid = 1010;

  beforeAll(async () => {
    fx = await startSim(flavour);
    sim = simApi(fx);
    await sim.createVm(vmid, {
      name: 'extras',
      memory: '512',
      scsi0: 'local-lvm:1',
      ide2: 'local-lvm:cloudinit',
      net0: 'virtio,bridge=vmbr0',
      ciuser: 'ops',
      ipconfig0: 'ip=192.0.2.50/24,gw=192.0.2.1',
    });
  });
  afterAll(() => fx.stop());

  it('cloudinit: values as generated, then pending ones; PUT regenerates the drive; dump answers the generated text', async () => {
    expect(await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/cloudinit`)).toEqual([{ key: 'ciuser', value: 'ops' }]);
    await sim.ok('PUT', `/nodes/pve1/qemu/${vmid}/config`, {
      ciuser: 'admin',
      searchdomain: 'lab.example',
      cipassword: 'secret',
    });
    const pending = await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/cloudinit`);
    expect(pending).toEqual(
      expect.arrayContaining([
        { key: 'cipassword', pending: '**********' },
        { key: 'searchdomain', pending: 'lab.example' },
        { key: 'ciuser', value: 'ops', pending: 'admin' },
      ]),
    );
    expect(pending).toHaveLength(3);
    expect((await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/config`)).cipassword).toBe('**********');
    const user = await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/cloudinit/dump?type=user`);
    expect(user).toContain(
      '#cloud-config\nhostname: extras\nmanage_etc_hosts: true\nfqdn: extras.lab.example\nuser: admin\n',
    );
    expect(await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/cloudinit/dump?type=network`)).toContain(
      "address: '192.0.2.50'",
    );
    expect(await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/cloudinit/dump?type=meta`)).toMatch(
      /^instance-id: [0-9a-f]{40}\n$/,
    );

    expect(await sim.ok('PUT', `/nodes/pve1/qemu/${vmid}/cloudinit`)).toBeNull();
    const drive = (await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/config`)).ide2.split(',')[0];
    expect(
      readFileSync(fx.sim.cluster.storages.resolve(drive, 'pve1').file).subarray(0x8000, 0x8006).toString('latin1'),
    ).toBe('\x01CD001'); // an ISO 9660 image
    expect(
      (await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/cloudinit`)).every(
        (i: { pending?: string }) => i.pending === undefined,
      ),
    ).toBe(true);
    await sim.ok('PUT', `/nodes/pve1/qemu/${vmid}/config`, { delete: 'searchdomain' });
    expect(await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/cloudinit`)).toEqual(
      expect.arrayContaining([{ key: 'searchdomain', delete: 1 }]),
    );
  });

  it("rrddata: the timeframe's resolution and length; points before the VM existed carry only their time; rrd names a PNG", async () => {
    fx.sim.cluster.vms.get(vmid)!.createdMs = Date.now() - 40 * 60_000;
    const lengths = flavour === '9.1' ? { hour: [60, 60], day: [60, 1440] } : { hour: [60, 70], day: [1800, 70] };
    for (const [timeframe, [step, count]] of Object.entries(lengths)) {
      const data = await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/rrddata?timeframe=${timeframe}&cf=AVERAGE`);
      expect(data).toHaveLength(count!);
      expect(data[1].time - data[0].time).toBe(step);
      expect(Object.keys(data[0])).toEqual(['time']);
      expect(data[data.length - 1]).toMatchObject({ maxcpu: 1, maxmem: 512 * 1024 * 1024, cpu: 0, netin: 0 });
    }
    const missing = await fx.raw('GET', '/api2/json/nodes/pve1/qemu/4242/rrddata?timeframe=hour');
    expect(missing.body.message).toMatch(
      /^RRD error: opening '\/var\/lib\/rrdcached\/db\/(pve-vm-9\.0|pve2\.3-vm)\/4242': No such file or directory\n$/,
    );
    const { filename } = await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/rrd?ds=cpu,mem&timeframe=hour`);
    expect(existsSync(filename) && readFileSync(filename).subarray(1, 4).toString()).toBe('PNG');
  });

  it('monitor and sendkey: not running, HMPPerms refusals, the commands a simulated VM answers', async () => {
    expect(await sim.ok('POST', `/nodes/pve1/qemu/${vmid}/monitor`, { command: 'info status' })).toBe(
      `ERROR: VM ${vmid} not running\n`,
    );
    const key = await fx.raw('PUT', `/api2/json/nodes/pve1/qemu/${vmid}/sendkey`, { form: { key: 'ctrl-alt-delete' } });
    expect([key.status, key.body.message]).toEqual([500, `VM ${vmid} not running\n`]);
    expect(await sim.task('POST', `/nodes/pve1/qemu/${vmid}/status/start`)).toBe('OK');
    expect(await sim.ok('POST', `/nodes/pve1/qemu/${vmid}/monitor`, { command: 'info status' })).toBe(
      'VM status: running\r\n',
    );
    expect(await sim.ok('PUT', `/nodes/pve1/qemu/${vmid}/sendkey`, { key: 'ctrl-alt-delete' })).toBeNull();
    const rootOnly = await fx.raw('POST', `/api2/json/nodes/pve1/qemu/${vmid}/monitor`, {
      form: { command: 'device_add e1000' },
    });
    expect(rootOnly.body.message).toBe("root-only command 'device_add'\n");
    const unknown = await fx.raw('POST', `/api2/json/nodes/pve1/qemu/${vmid}/monitor`, {
      form: { command: 'frobnicate' },
    });
    expect(unknown.body.message).toBe(
      "command 'frobnicate' non-existent or not assigned a required permission yet, limiting to root user\n",
    );
    expect(await sim.ok('POST', `/nodes/pve1/qemu/${vmid}/monitor`, { command: 'info block' })).toMatch(
      /^ERROR: monitor command 'info block' is not simulated/,
    );
  });

  it('agent commands with parameters: refused as PVE refuses them when no agent answers', async () => {
    const agent = async (method: string, cmd: string, form: Record<string, string> = {}) => {
      const query = method === 'GET' ? `?${new URLSearchParams(form)}` : '';
      const r = await fx.raw(
        method,
        `/api2/json/nodes/pve1/qemu/${vmid}/agent/${cmd}${query}`,
        method === 'GET' ? {} : { form },
      );
      return [r.status, r.body.message];
    };
    expect(await agent('POST', 'exec', { command: 'uname' })).toEqual([500, 'No QEMU guest agent configured\n']);
    // A running VM takes `agent` at its next start.
    expect(await sim.task('POST', `/nodes/pve1/qemu/${vmid}/status/stop`)).toBe('OK');
    await sim.ok('PUT', `/nodes/pve1/qemu/${vmid}/config`, { agent: '1' });
    expect(await agent('POST', 'exec', { command: 'uname' })).toEqual([500, `VM ${vmid} is not running\n`]);
    expect(await sim.task('POST', `/nodes/pve1/qemu/${vmid}/status/start`)).toBe('OK');
    for (const [method, cmd, form] of [
      ['POST', 'exec', { command: 'uname' }],
      ['GET', 'exec-status', { pid: '1' }],
      ['GET', 'file-read', { file: '/etc/hostname' }],
      ['POST', 'file-write', { file: '/tmp/x', content: 'x' }],
      ['POST', 'set-user-password', { username: 'root', password: 'secret12' }],
    ] as const) {
      expect([cmd, ...(await agent(method, cmd, form))]).toEqual([cmd, 500, 'QEMU guest agent is not running\n']);
    }
    // `command` is an array parameter: a JSON array passes validation (a number would not).
    const array = await fx.raw('POST', `/api2/json/nodes/pve1/qemu/${vmid}/agent/exec`, {
      json: { command: ['uname', '-a'] },
    });
    expect([array.status, array.body.message]).toEqual([500, 'QEMU guest agent is not running\n']);
    const none = await fx.raw('POST', `/api2/json/nodes/pve1/qemu/${vmid}/agent/exec`, { json: {} });
    expect([none.status, none.body.errors]).toEqual([400, { command: 'property is missing and it is not optional' }]);
    expect((await sim.ok('GET', `/nodes/pve1/qemu/${vmid}/agent`)).map((c: { name: string }) => c.name)).toEqual(
      expect.arrayContaining(['exec', 'exec-status', 'file-read', 'file-write', 'set-user-password']),
    );
  });
});
