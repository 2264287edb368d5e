import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SAMPLE_POOL } from '../../../lab/proxmox-sim/sample-cluster';
import { FLAVOURS, startSim, type SimFixture } from '../../helpers/proxmox';

/**
 * What the simulator stores and does as qemu-server does, found by driving it with community.proxmox and
 * proxmoxer: drive and NIC strings are stored as qemu-server prints them (yes/no words as 1/0), an
 * import from an empty or unreadable image fails with PVE's message, a destroy removes the VM's ACL
 * entries and pool membership, and a new VM is listed as soon as its config exists.
 */
describe.each(FLAVOURS)('simulator fidelity, PVE %s', (flavour) => {
  let fx: SimFixture;
  let next = 400;
  const api = (p: string) => `/api2/json${p}`;

  beforeAll(async () => {
    fx = await startSim(flavour);
  });
  afterAll(() => fx.stop());

  async function task(upid: string): Promise<string> {
    await fx.sim.cluster.tasks.idle();
    return fx.sim.cluster.tasks.get(upid)!.exitstatus!;
  }

  async function create(
    form: Record<string, string>,
    headers?: Record<string, string>,
  ): Promise<{ vmid: number; exitstatus: string }> {
    const vmid = next++;
    const r = await fx.raw('POST', api('/nodes/pve1/qemu'), { form: { vmid: String(vmid), ...form }, headers });
    expect([r.status, r.body.message]).toEqual([200, undefined]);
    return { vmid, exitstatus: await task(r.body.data) };
  }

  const config = async (vmid: number) => (await fx.raw('GET', api(`/nodes/pve1/qemu/${vmid}/config`))).body.data;

  it('stores yes/no words of drive and NIC booleans as 1/0, keys in print_drive/print_net order; other options as given', async () => {
    const { vmid, exitstatus } = await create({
      scsi0: 'local-lvm:1,ssd=true,discard=on,iothread=yes',
      net0: 'virtio,bridge=vmbr0,firewall=yes,link_down=off',
      efidisk0: 'local-lvm:1,efitype=4m,pre-enrolled-keys=True',
      agent: 'enabled=yes',
    });
    expect(exitstatus).toBe('OK');
    const c = await config(vmid);
    expect(c.scsi0).toBe(`local-lvm:vm-${vmid}-disk-0,discard=on,iothread=1,size=1G,ssd=1`);
    expect(c.net0).toMatch(/^virtio=BC:24:11:[0-9A-F:]{8},bridge=vmbr0,firewall=1,link_down=0$/);
    expect(c.efidisk0).toBe(`local-lvm:vm-${vmid}-disk-1,efitype=4m,pre-enrolled-keys=1,size=528K`);
    // qemu-server re-prints only drives and NICs; any other property string is stored as sent.
    expect(c.agent).toBe('enabled=yes');

    const put = await fx.raw('PUT', api(`/nodes/pve1/qemu/${vmid}/config`), {
      form: {
        net1: 'e1000=BC:24:11:00:00:01,firewall=TRUE,bridge=vmbr1',
        scsi0: `${c.scsi0.replace('ssd=1', 'ssd=no')}`,
      },
    });
    expect(put.status).toBe(200);
    const after = await config(vmid);
    expect(after.net1).toBe('e1000=BC:24:11:00:00:01,bridge=vmbr1,firewall=1');
    expect(after.scsi0).toBe(`local-lvm:vm-${vmid}-disk-0,discard=on,iothread=1,size=1G,ssd=0`);
  });

  describe('import-from an empty or unreadable image fails the task, as qemu-server does, and leaves no disk', () => {
    let importDir: string;
    beforeAll(() => {
      importDir = path.join(fx.stateDir, 'proxmox', 'storage', 'local', 'pve1', 'import');
      mkdirSync(importDir, { recursive: true });
      writeFileSync(path.join(importDir, 'empty.raw'), '');
      writeFileSync(path.join(importDir, 'broken.qcow2'), 'this is not a qcow2 image');
    });
    const disks = (vmid: number) =>
      readdirSync(path.join(fx.stateDir, 'proxmox', 'storage', 'local-lvm', 'pve1')).filter((f) =>
        f.startsWith(`vm-${vmid}-`),
      );

    it('an empty import volume: "could not get size of" (the copy never starts)', async () => {
      const { vmid, exitstatus } = await create({ scsi0: 'local-lvm:0,import-from=local:import/empty.raw' });
      expect(exitstatus).toBe(
        `unable to create VM ${vmid} - cannot import from 'local:import/empty.raw' - could not get size of local:import/empty.raw`,
      );
      expect(disks(vmid)).toEqual([]);
      expect(fx.sim.cluster.vms.has(vmid)).toBe(false);
    });

    it('an empty import volume, live: "could not get file size of <path>"', async () => {
      const { vmid, exitstatus } = await create({
        scsi0: 'local-lvm:0,import-from=local:import/empty.raw',
        'live-restore': '1',
      });
      expect(exitstatus).toBe(
        `unable to create VM ${vmid} - could not get file size of ${path.join(importDir, 'empty.raw')}`,
      );
      expect(disks(vmid)).toEqual([]);
    });

    it('an image qemu-img cannot read (an untrusted import volume): "failed to query file information with qemu-img"', async () => {
      const { vmid, exitstatus } = await create({ scsi0: 'local-lvm:0,import-from=local:import/broken.qcow2' });
      expect(exitstatus).toBe(`unable to create VM ${vmid} - failed to query file information with qemu-img`);
      expect(disks(vmid)).toEqual([]);
    });

    it('an empty file by absolute path (root@pam): "could not get file size of <path>"', async () => {
      const login = await fx.raw('POST', api('/access/ticket'), {
        form: { username: 'root@pam', password: fx.credentials.rootPassword },
        headers: { authorization: '' },
      });
      const headers = {
        authorization: '',
        cookie: `PVEAuthCookie=${encodeURIComponent(login.body.data.ticket)}`,
        csrfpreventiontoken: login.body.data.CSRFPreventionToken,
      };
      const file = path.join(importDir, 'empty.raw');
      const { vmid, exitstatus } = await create({ scsi0: `local-lvm:0,import-from=${file}` }, headers);
      expect(exitstatus).toBe(`unable to create VM ${vmid} - could not get file size of ${file}`);
      expect(disks(vmid)).toEqual([]);
    });

    it('a config write that imports an empty volume fails its task with the same message, unprefixed', async () => {
      const { vmid } = await create({ name: 'target' });
      const r = await fx.raw('POST', api(`/nodes/pve1/qemu/${vmid}/config`), {
        form: { scsi1: 'local-lvm:0,import-from=local:import/empty.raw' },
      });
      expect(await task(r.body.data)).toBe(
        "cannot import from 'local:import/empty.raw' - could not get size of local:import/empty.raw",
      );
      expect((await config(vmid)).scsi1).toBeUndefined();
      expect(disks(vmid)).toEqual([]);
    });
  });

  it.each([
    ['without purge', {}],
    ['with purge', { purge: '1' }],
  ])("a destroy %s removes the VM's ACL entries and pool membership", async (_, extra) => {
    const { vmid } = await create({ name: 'doomed', pool: SAMPLE_POOL });
    const acl = await fx.raw('PUT', api('/access/acl'), {
      form: { path: `/vms/${vmid}`, roles: 'PVEVMUser', groups: 'admins' },
    });
    expect(acl.status).toBe(200);
    const members = async () =>
      (await fx.raw('GET', api(`/pools?poolid=${SAMPLE_POOL}`))).body.data[0].members.map(
        (m: { vmid: number }) => m.vmid,
      );
    expect(await members()).toContain(vmid);
    const r = await fx.raw('DELETE', api(`/nodes/pve1/qemu/${vmid}`), { form: extra });
    expect(await task(r.body.data)).toBe('OK');
    expect(
      (await fx.raw('GET', api('/access/acl'))).body.data.filter((e: { path: string }) => e.path === `/vms/${vmid}`),
    ).toEqual([]);
    expect(await members()).not.toContain(vmid);
  });

  it('lists a new VM in /cluster/resources as soon as its config exists (locked while the create runs)', async () => {
    fx.sim.cluster.settings.createTaskMs = 300;
    try {
      const vmid = next++;
      const r = await fx.raw('POST', api('/nodes/pve1/qemu'), { form: { vmid: String(vmid), name: 'fresh' } });
      expect(r.status).toBe(200);
      const rows = (await fx.raw('GET', api('/cluster/resources?type=vm'))).body.data;
      expect(rows.find((row: { vmid: number }) => row.vmid === vmid)).toMatchObject({
        node: 'pve1',
        status: 'stopped',
        lock: 'create',
      });
      expect(await task(r.body.data)).toBe('OK');
      const after = (await fx.raw('GET', api('/cluster/resources?type=vm'))).body.data;
      expect(after.find((row: { vmid: number }) => row.vmid === vmid)).toMatchObject({ name: 'fresh' });
      expect(after.find((row: { vmid: number }) => row.vmid === vmid).lock).toBeUndefined();
    } finally {
      fx.sim.cluster.settings.createTaskMs = 30;
    }
  });
});
