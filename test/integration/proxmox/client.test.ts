import { existsSync } from 'node:fs';
import { inspect } from 'node:util';
import path from 'node:path';
import {
  ProxmoxAuthError,
  ProxmoxDigestMismatchError,
  ProxmoxError,
  ProxmoxLockedError,
  ProxmoxNotFoundError,
  ProxmoxParameterError,
  ProxmoxPermissionError,
  ProxmoxPolicyError,
  ProxmoxRequestError,
  ProxmoxResponseError,
  ProxmoxTaskError,
  ProxmoxTaskTimeoutError,
  ProxmoxTlsError,
  ProxmoxTransientError,
  ProxmoxVmRunningError,
  type ProxmoxClient,
} from '../../../src/proxmox';
import { nodeListSchema, upidSchema } from '../../../src/proxmox/schemas';
import { SAMPLE_ISO } from '../../../lab/proxmox-sim/sample-cluster';
import { failure, FLAVOURS, startSim, type SimFixture } from '../../helpers/proxmox';

describe.each(FLAVOURS)('Proxmox client against the simulator, PVE %s', (flavour) => {
  let fx: SimFixture;
  let pve: ProxmoxClient;
  let nextVmid = 200;
  const vmid = () => nextVmid++;

  beforeAll(async () => {
    fx = await startSim(flavour);
    pve = fx.client();
  });
  afterAll(() => fx.stop());

  const shell = (id: number, extra: Partial<Parameters<ProxmoxClient['vms']['create']>[0]> = {}) =>
    pve.vms.create({
      node: 'pve1',
      vmid: id,
      name: `vm${id}`,
      cores: 2,
      sockets: 1,
      memory: 2048,
      ostype: 'l26',
      scsihw: 'virtio-scsi-single',
      ...extra,
    });

  describe('connection, TLS and authentication', () => {
    it('reads the version and derives the SDN behaviour', async () => {
      const v = await pve.version();
      expect(v.release).toBe(flavour);
      expect(v.sdnLock).toBe(flavour === '9.1');
    });

    it('refuses an untrusted certificate unless the endpoint turns verification off', async () => {
      const untrusted = fx.client({ caFile: undefined });
      const err = await failure(() => untrusted.version());
      expect(err).toBeInstanceOf(ProxmoxTlsError);
      expect(err.message).toMatch(/caFile/);
      expect(err.retryable).toBe(false);
      const insecure = fx.client({ caFile: undefined, validateCerts: false });
      expect((await insecure.version()).release).toBe(flavour);
    });

    it('reports a wrong token secret as an authentication error without leaking the secret', async () => {
      const bad = fx.client({ auth: { kind: 'token', tokenId: fx.credentials.tokenId, secret: 'wrong-secret-123' } });
      const err = await failure(() => bad.version());
      expect(err).toBeInstanceOf(ProxmoxAuthError);
      expect(err.category).toBe('permission');
      expect(err.message).not.toContain('wrong-secret-123');
      expect(JSON.stringify(err.details)).not.toContain('wrong-secret-123');
    });

    it('reports a missing privilege as a permission error (read-only token writing)', async () => {
      const audit = fx.client({
        auth: { kind: 'token', tokenId: fx.credentials.auditTokenId, secret: fx.credentials.auditTokenSecret },
      });
      expect((await audit.vms.list()).length).toBeGreaterThanOrEqual(0);
      const err = await failure(() =>
        audit.acl.ensure({ path: '/vms', roles: ['PVEAuditor'], users: ['auditor@pve'] }),
      );
      expect(err).toBeInstanceOf(ProxmoxPermissionError);
      expect(err.message).toMatch(/Permission check failed/);
    });

    it('rejects an answer of an unexpected shape, naming what did not match', async () => {
      const err = await failure(() => pve.transport.call('GET', '/version', {}, nodeListSchema));
      expect(err).toBeInstanceOf(ProxmoxResponseError);
      expect(err.message).toMatch(/^GET \/version: unexpected answer: \(data\): .*expected array/);
      expect(err.retryable).toBe(false);
    });

    it('turns a refused connection into a transient error', async () => {
      const nowhere = fx.client({ port: 1 });
      const err = await failure(() => nowhere.version());
      expect(err).toBeInstanceOf(ProxmoxTransientError);
      expect(err.retryable).toBe(true);
    });

    it('logs in with a ticket, sends the CSRF token on writes and renews the ticket before it expires', async () => {
      fx.sim.cluster.settings.ticketLifetimeMs = 1500;
      try {
        const root = fx.client({
          auth: { kind: 'ticket', username: 'root@pam', password: fx.credentials.rootPassword, renewAfterMs: 500 },
        });
        const id = vmid();
        await root.vms.create({ node: 'pve1', vmid: id, name: `ticket${id}` });
        for (let i = 0; i < 4; i++) {
          await root.config.ensure('pve1', id, { description: `round ${i}` });
          await new Promise((r) => setTimeout(r, 400));
        }
        expect((await root.config.get('pve1', id)).values.description).toBe('round 3');
        expect(root.transport.ticketsIssued).toBeGreaterThanOrEqual(3);
        const loginsWithPassword = fx.sim.requests.filter((r) => r.path === '/access/ticket');
        expect(loginsWithPassword.length).toBe(root.transport.ticketsIssued);
      } finally {
        fx.sim.cluster.settings.ticketLifetimeMs = 7200_000;
      }
    });

    it('refuses an account that needs a second factor, clearly and without retrying', async () => {
      fx.sim.cluster.identities.set('tfa@pve', { id: 'tfa@pve', role: 'admin', secret: 'tfa-password-1', tfa: true });
      const tfa = fx.client({ auth: { kind: 'ticket', username: 'tfa@pve', password: 'tfa-password-1' } });
      const err = await failure(() => tfa.vms.list());
      expect(err).toBeInstanceOf(ProxmoxError);
      expect(err.message).toMatch(/tfa@pve has two-factor authentication/);
      expect(err.retryable).toBe(false);
      expect(tfa.transport.ticketsIssued).toBe(0);
    });

    it('delays a failed password login like any other authentication failure', async () => {
      const wrong = fx.client({ auth: { kind: 'ticket', username: 'root@pam', password: 'not-the-password' } });
      const started = Date.now();
      expect(await failure(() => wrong.vms.list())).toBeInstanceOf(ProxmoxAuthError);
      expect(Date.now() - started).toBeGreaterThanOrEqual(45); // the fixture's authFailureDelayMs is 50
    });

    it('never shows credentials when a client is inspected (util.inspect, hidden members included)', async () => {
      const root = fx.client({ auth: { kind: 'ticket', username: 'root@pam', password: fx.credentials.rootPassword } });
      await root.vms.list(); // holds a ticket now
      const token = fx.client();
      for (const client of [root, token]) {
        const shown =
          inspect(client, { depth: 8, showHidden: true }) + inspect(client.transport, { depth: 8, showHidden: true });
        for (const secret of [fx.credentials.rootPassword, fx.credentials.tokenSecret, 'PVE:root@pam'])
          expect(shown).not.toContain(secret);
        expect(shown).toContain('ProxmoxTransport');
      }
    });

    it('a ticket write without the CSRF token is refused (401)', async () => {
      const login = await fx.raw('POST', '/api2/json/access/ticket', {
        form: { username: 'root@pam', password: fx.credentials.rootPassword },
        headers: { authorization: '' },
      });
      expect(login.status).toBe(200);
      const cookie = `PVEAuthCookie=${encodeURIComponent(login.body.data.ticket)}`;
      const read = await fx.raw('GET', '/api2/json/version', { headers: { authorization: '', cookie } });
      expect(read.status).toBe(200);
      const write = await fx.raw('PUT', '/api2/json/access/acl', {
        form: { path: '/', roles: 'PVEAuditor', users: 'auditor@pve' },
        headers: { authorization: '', cookie },
      });
      expect(write.status).toBe(401);
      expect(write.statusText).toMatch(/csrf/i);
    });
  });

  describe('VMs', () => {
    it('creates a shell with firmware, EFI disk and the shell options, and repeating it changes nothing', async () => {
      const id = vmid();
      const spec = {
        node: 'pve1',
        vmid: id,
        name: 'web01',
        machine: 'q35',
        bios: 'ovmf' as const,
        efidisk: { storage: 'local-lvm', efitype: '4m' as const, preEnrolledKeys: true },
        cores: 2,
        sockets: 2,
        memory: 4096,
        ostype: 'l26',
        scsihw: 'virtio-scsi-single',
        agent: true,
        onboot: true,
        tags: ['ferry', 'wave1'],
        boot: 'order=scsi0;net0',
        rng0: 'source=/dev/urandom',
      };
      const first = await pve.vms.create(spec);
      expect(first).toMatchObject({ created: true, vmid: id, node: 'pve1' });
      expect(first.task?.exitstatus).toBe('OK');
      const config = await pve.config.get('pve1', id);
      expect(config.digest).toMatch(/^[0-9a-f]{40}$/);
      expect(config.values).toMatchObject({
        name: 'web01',
        machine: 'q35',
        bios: 'ovmf',
        cores: '2',
        sockets: '2',
        memory: '4096',
        ostype: 'l26',
        scsihw: 'virtio-scsi-single',
        agent: '1',
        onboot: '1',
        tags: 'ferry;wave1',
        boot: 'order=scsi0;net0',
        rng0: 'source=/dev/urandom',
      });
      expect(config.values.efidisk0).toMatch(/^local-lvm:vm-\d+-disk-0,efitype=4m,pre-enrolled-keys=1,size=528K$/);
      const again = await pve.vms.create(spec);
      expect(again).toEqual({ created: false, vmid: id, node: 'pve1' });
      expect((await pve.config.get('pve1', id)).digest).toBe(config.digest);
    });

    it('holds `lock: create` while the create task runs, and waits for it when asked again', async () => {
      // Long enough that the update below still meets the lock on a loaded machine (300 ms did not).
      fx.sim.cluster.settings.createTaskMs = 3_000;
      try {
        const id = vmid();
        const upid = (
          await fx.raw('POST', '/api2/json/nodes/pve1/qemu', { form: { vmid: String(id), name: `slow${id}` } })
        ).body.data;
        expect((await pve.config.get('pve1', id)).values.lock).toBe('create');
        const locked = await failure(() => pve.config.update('pve1', id, { set: { description: 'x' } }));
        expect(locked).toBeInstanceOf(ProxmoxLockedError);
        // pve-guest-common's check_lock names no VMID: "VM is locked (create)".
        expect(locked.message).toMatch(/VM is locked \(create\)/);
        expect(locked.retryable).toBe(true);
        const result = await pve.vms.create({ node: 'pve1', vmid: id, name: `slow${id}` });
        expect(result.created).toBe(false);
        expect((await pve.config.get('pve1', id)).values.lock).toBeUndefined();
        expect((await pve.waitForTask(upid)).exitstatus).toBe('OK');
      } finally {
        fx.sim.cluster.settings.createTaskMs = 30;
      }
    });

    it('refuses a VMID already used by another VM instead of adopting it', async () => {
      const id = vmid();
      await shell(id);
      const err = await failure(() => pve.vms.create({ node: 'pve1', vmid: id, name: 'someone-else' }));
      expect(err).toBeInstanceOf(ProxmoxPolicyError);
      expect(err.message).toMatch(new RegExp(`VMID ${id} on pve1 already exists as 'vm${id}'`));
      const elsewhere = await failure(() => pve.vms.create({ node: 'pve2', vmid: id, name: `vm${id}` }));
      expect(elsewhere.message).toMatch(new RegExp(`VMID ${id} is already used on node pve1`));
      const ct = await failure(() => pve.vms.create({ node: 'pve1', vmid: 900, name: 'x' }));
      expect(ct.message).toMatch(/container/);
    });

    it('finds VMs by VMID and by name (all of them: names are not unique), qemu only', async () => {
      const [a, b] = [vmid(), vmid()];
      await pve.vms.create({ node: 'pve1', vmid: a, name: 'twin' });
      await pve.vms.create({ node: 'pve2', vmid: b, name: 'twin' });
      const twins = await pve.vms.findByName('twin');
      expect(twins.map((v) => [v.vmid, v.node]).sort()).toEqual([
        [a, 'pve1'],
        [b, 'pve2'],
      ]);
      expect(await pve.vms.findById(b)).toMatchObject({ vmid: b, node: 'pve2', name: 'twin', status: 'stopped' });
      expect(await pve.vms.findById(99999)).toBeUndefined();
      expect((await pve.vms.list()).some((v) => v.vmid === 900)).toBe(false); // the container
    });

    it('sees a fresh VM by VMID even while /cluster/resources lags; by name only after the lag', async () => {
      fx.sim.cluster.settings.resourcesLagMs = 400;
      try {
        const id = vmid();
        await pve.vms.create({ node: 'pve3', vmid: id, name: `lagging${id}` });
        expect(await pve.vms.findByName(`lagging${id}`)).toEqual([]);
        expect(await pve.vms.findById(id)).toMatchObject({ vmid: id, node: 'pve3' });
        await new Promise((r) => setTimeout(r, 450));
        expect((await pve.vms.findByName(`lagging${id}`)).map((v) => v.vmid)).toEqual([id]);
      } finally {
        fx.sim.cluster.settings.resourcesLagMs = 0;
      }
    });

    it('nextid reserves nothing and is read as a number although PVE sends a string', async () => {
      const free = await pve.vms.nextFreeId();
      expect(typeof free).toBe('number');
      expect(await pve.vms.nextFreeId()).toBe(free);
      expect(await pve.vms.vmidTaken(free)).toBe(false);
    });

    it('deletes a stopped VM with its disks, refuses a running one, and deleting twice is fine', async () => {
      const id = vmid();
      await shell(id, { extra: { scsi0: 'local-lvm:1' } });
      const volume = (await pve.disks.get('pve1', id, 'scsi0'))!.volume;
      await pve.power.start('pve1', id);
      const refused = await failure(() => pve.vms.delete('pve1', id));
      expect(refused).toBeInstanceOf(ProxmoxVmRunningError);
      const raw = await fx.raw('DELETE', `/api2/json/nodes/pve1/qemu/${id}`);
      expect(raw.status).toBe(500);
      expect(raw.statusText).toBe(`VM ${id} is running - destroy failed`);
      await pve.power.stop('pve1', id);
      const file = path.join(fx.stateDir, 'proxmox', 'storage', 'local-lvm', 'pve1', `${volume.split(':')[1]}.raw`);
      expect(existsSync(file)).toBe(true);
      expect((await pve.vms.delete('pve1', id, { purge: true, destroyUnreferencedDisks: true })).deleted).toBe(true);
      expect(existsSync(file)).toBe(false);
      expect(await pve.vms.delete('pve1', id)).toEqual({ deleted: false });
      expect(await failure(() => pve.config.get('pve1', id))).toBeInstanceOf(ProxmoxNotFoundError);
    });
  });

  describe('config', () => {
    it('updates with the digest, writes only differences, and fails on a stale digest', async () => {
      const id = vmid();
      await shell(id);
      const before = await pve.config.get('pve1', id);
      expect(await pve.config.ensure('pve1', id, { cores: 4, onboot: true })).toEqual({ changed: ['cores', 'onboot'] });
      const writes = fx.sim.requests.length;
      expect(await pve.config.ensure('pve1', id, { cores: 4, onboot: true })).toEqual({ changed: [] });
      expect(fx.sim.requests.slice(writes).filter((r) => r.method !== 'GET')).toEqual([]);
      const stale = await failure(() => pve.config.update('pve1', id, { set: { cores: 8 }, digest: before.digest }));
      expect(stale).toBeInstanceOf(ProxmoxDigestMismatchError);
      expect(stale.category).toBe('conflict');
      expect((await pve.config.get('pve1', id)).values.cores).toBe('4');
    });

    it('rejects bad parameters with the per-parameter messages', async () => {
      const id = vmid();
      await shell(id);
      const err = await failure(() =>
        pve.config.update('pve1', id, { set: { cores: 'many', corse: 2, net40: 'virtio' } }),
      );
      expect(err).toBeInstanceOf(ProxmoxParameterError);
      expect(err.errors).toEqual({
        cores: "type check ('integer') failed - got 'many'",
        corse: 'property is not defined in schema and the schema does not allow additional properties',
        net40: 'property is not defined in schema and the schema does not allow additional properties',
      });
      expect(err.message).toMatch(/corse: property is not defined/);
      expect(err.retryable).toBe(false);
    });

    it('keeps changes a running VM cannot take as pending until the next start', async () => {
      const id = vmid();
      await shell(id);
      await pve.power.start('pve1', id);
      await pve.config.ensure('pve1', id, { memory: 8192, description: 'hot' });
      const read = await pve.config.read('pve1', id);
      expect(read.pending).toEqual([{ key: 'memory', value: '2048', pending: '8192' }]);
      expect(read.values.memory).toBe('8192'); // the view with pending applied
      expect((await pve.config.get('pve1', id, { current: true })).values).toMatchObject({
        memory: '2048',
        description: 'hot',
      });
      await pve.power.stop('pve1', id);
      await pve.power.start('pve1', id);
      expect((await pve.config.read('pve1', id)).pending).toEqual([]);
      expect((await pve.config.get('pve1', id, { current: true })).values.memory).toBe('8192');
      await pve.power.stop('pve1', id);
    });
  });

  describe('NICs', () => {
    it('adds a NIC with a generated BC:24:11 MAC, keeps the MAC on update, and removes it', async () => {
      const id = vmid();
      await shell(id);
      const added = await pve.nics.set('pve1', id, 0, { bridge: 'vmbr0', firewall: true });
      expect(added.changed).toBe(true);
      expect(added.macaddr).toMatch(/^BC:24:11(:[0-9A-F]{2}){3}$/);
      expect(await pve.nics.set('pve1', id, 0, { bridge: 'vmbr0', firewall: true })).toEqual({
        changed: false,
        macaddr: added.macaddr,
      });
      const moved = await pve.nics.set('pve1', id, 0, { bridge: 'vmbr1', tag: 20, model: 'e1000' });
      expect(moved).toEqual({ changed: true, macaddr: added.macaddr });
      expect((await pve.config.get('pve1', id)).values.net0).toBe(`e1000=${added.macaddr},bridge=vmbr1,tag=20`);
      const given = await pve.nics.set('pve1', id, 1, {
        bridge: 'vmbr0',
        macaddr: '00:50:56:aa:bb:cc',
        trunks: [10, 20],
      });
      expect(given.macaddr).toBe('00:50:56:AA:BB:CC');
      expect(Object.keys(await pve.nics.list('pve1', id))).toEqual(['net0', 'net1']);
      expect(await pve.nics.remove('pve1', id, 1)).toEqual({ changed: true });
      expect(await pve.nics.remove('pve1', id, 1)).toEqual({ changed: false });
      const bad = await failure(() => pve.nics.set('pve1', id, 2, { bridge: 'vmbr0', tag: 5000 }));
      expect(bad).toBeInstanceOf(ProxmoxParameterError);
      expect(bad.errors.net2).toMatch(/net2\.tag: value must have a maximum value of 4094/);
    });
  });

  describe('disks', () => {
    it('regular: creates, then updates options only; disabled: never creates', async () => {
      const id = vmid();
      await shell(id);
      expect(
        (await pve.disks.ensure('pve1', id, 'scsi0', { storage: 'local-lvm', sizeGiB: 2, options: { iothread: true } }))
          .action,
      ).toBe('created');
      const disk = (await pve.disks.get('pve1', id, 'scsi0'))!;
      expect(disk).toMatchObject({ sizeBytes: 2 * 1024 ** 3, options: { iothread: '1' } });
      expect(
        (await pve.disks.ensure('pve1', id, 'scsi0', { storage: 'local-lvm', sizeGiB: 2, options: { iothread: true } }))
          .action,
      ).toBe('unchanged');
      expect(
        (
          await pve.disks.ensure('pve1', id, 'scsi0', {
            storage: 'local-lvm',
            sizeGiB: 2,
            options: { discard: 'on' },
            create: 'disabled',
          })
        ).action,
      ).toBe('updated');
      expect((await pve.disks.get('pve1', id, 'scsi0'))!).toMatchObject({
        volume: disk.volume,
        options: { iothread: '1', discard: 'on' },
      });
      const refused = await failure(() =>
        pve.disks.ensure('pve1', id, 'scsi1', { storage: 'local-lvm', sizeGiB: 1, create: 'disabled' }),
      );
      expect(refused).toBeInstanceOf(ProxmoxRequestError);
      expect(refused.message).toMatch(/no disk scsi1 and create is 'disabled'/);
    });

    it('forced: a new disk replaces the old one, which is detached to unusedN, never deleted', async () => {
      const id = vmid();
      await shell(id);
      await pve.disks.ensure('pve1', id, 'scsi0', { storage: 'local', sizeGiB: 1, format: 'qcow2' });
      const old = (await pve.disks.get('pve1', id, 'scsi0'))!.volume;
      expect(old).toMatch(new RegExp(`^local:${id}/vm-${id}-disk-0\\.qcow2$`));
      expect(
        (await pve.disks.ensure('pve1', id, 'scsi0', { storage: 'local', sizeGiB: 1, create: 'forced' })).action,
      ).toBe('replaced');
      const values = (await pve.config.get('pve1', id)).values;
      expect(values.unused0).toBe(old);
      expect(values.scsi0).not.toContain(old);
      expect(
        existsSync(
          path.join(fx.stateDir, 'proxmox', 'storage', 'local', 'pve1', 'images', String(id), `vm-${id}-disk-0.qcow2`),
        ),
      ).toBe(true);
    });

    it('detaches to unusedN, deletes physically, resizes (grow only) and moves between storages', async () => {
      const id = vmid();
      await shell(id);
      await pve.disks.ensure('pve1', id, 'scsi0', { storage: 'local-lvm', sizeGiB: 1 });
      await pve.disks.ensure('pve1', id, 'scsi1', { storage: 'local-lvm', sizeGiB: 1 });
      const detached = await pve.disks.detach('pve1', id, 'scsi1');
      expect(detached).toEqual({ changed: true, unused: 'unused0' });
      expect(await pve.disks.detach('pve1', id, 'scsi1')).toEqual({ changed: false });
      const unusedVolume = (await pve.config.get('pve1', id)).values.unused0!;
      const unusedFile = path.join(
        fx.stateDir,
        'proxmox',
        'storage',
        'local-lvm',
        'pve1',
        `${unusedVolume.split(':')[1]}.raw`,
      );
      expect(existsSync(unusedFile)).toBe(true);
      expect(await pve.disks.delete('pve1', id, 'unused0')).toEqual({ changed: true });
      expect(existsSync(unusedFile)).toBe(false);

      const grown = await pve.disks.resize('pve1', id, 'scsi0', '3G');
      expect(grown.changed).toBe(true);
      expect(grown.task?.exitstatus).toBe('OK');
      expect((await pve.disks.get('pve1', id, 'scsi0'))!.sizeBytes).toBe(3 * 1024 ** 3);
      expect(await pve.disks.resize('pve1', id, 'scsi0', '3G')).toEqual({ changed: false });
      expect((await failure(() => pve.disks.resize('pve1', id, 'scsi0', '1G'))).message).toMatch(/shrinking/);
      const shrink = await failure(async () =>
        pve.waitForTask(
          await pve.transport.call('PUT', `/nodes/pve1/qemu/${id}/resize`, { disk: 'scsi0', size: '1G' }, upidSchema),
        ),
      );
      expect(shrink).toBeInstanceOf(ProxmoxTaskError);
      expect(shrink.exitstatus).toBe('shrinking disks is not supported');
      expect(shrink.log[shrink.log.length - 1]).toBe('TASK ERROR: shrinking disks is not supported');

      const moved = await pve.disks.move('pve1', id, 'scsi0', { storage: 'nfs-migration', format: 'qcow2' });
      expect(moved.changed).toBe(true);
      const after = (await pve.config.get('pve1', id)).values;
      expect(after.scsi0).toMatch(new RegExp(`^nfs-migration:${id}/vm-${id}-disk-0\\.qcow2,.*size=3G`));
      expect(after.unused0).toMatch(/^local-lvm:vm-\d+-disk-0$/); // the source is kept
      expect(await pve.disks.move('pve1', id, 'scsi0', { storage: 'nfs-migration' })).toEqual({ changed: false });
      const content = await pve.storage.content('pve1', 'nfs-migration', { content: 'images', vmid: id });
      expect(content).toEqual([
        expect.objectContaining({
          volid: `nfs-migration:${id}/vm-${id}-disk-0.qcow2`,
          format: 'qcow2',
          size: 3 * 1024 ** 3,
        }),
      ]);
    });

    it('import-from only creates: a used slot is an error, and size must be 0 on the wire', async () => {
      const id = vmid();
      await shell(id);
      await pve.disks.ensure('pve1', id, 'scsi0', { storage: 'local-lvm', sizeGiB: 1 });
      const err = await failure(() =>
        pve.disks.import('pve1', id, 'scsi0', { storage: 'local-lvm', source: 'nfs-migration:import/none.vmdk' }),
      );
      expect(err).toBeInstanceOf(ProxmoxPolicyError);
      expect(err.message).toMatch(/already has scsi0.*import-from only creates disks/);
      const wire = await fx.raw('PUT', `/api2/json/nodes/pve1/qemu/${id}/config`, {
        form: { scsi1: 'local-lvm:4,import-from=nfs-migration:import/x.vmdk' },
      });
      expect(wire.status).toBe(400);
      expect(wire.body.errors).toEqual({
        scsi1: "'import-from' requires special syntax - use <storage ID>:0,import-from=<source>",
      });
      const missing = await failure(() =>
        pve.disks.import('pve1', id, 'scsi1', { storage: 'local-lvm', source: 'nfs-migration:import/none.vmdk' }),
      );
      expect(missing).toBeInstanceOf(ProxmoxTaskError);
      expect(missing.exitstatus).toMatch(/volume 'nfs-migration:import\/none.vmdk' does not exist/);
      expect(missing.category).toBe('not-found');
      const pathImport = await failure(() =>
        pve.disks.import('pve1', id, 'scsi1', { storage: 'local-lvm', source: '/etc/hostname' }),
      );
      // check_storage_access refuses it in the request, before any task (PVE::Storage::check_volume_access).
      expect(pathImport).toBeInstanceOf(ProxmoxRequestError);
      expect(pathImport.message).toMatch(/Only root can pass arbitrary filesystem paths\./);
    });
  });

  describe('power', () => {
    it('starts, shuts down and stops, each a no-op when already there', async () => {
      const id = vmid();
      await shell(id);
      fx.sim.cluster.vms.get(id)!.guestAcpi = true; // a guest with an OS, which answers ACPI
      expect((await pve.power.start('pve1', id)).changed).toBe(true);
      expect(await pve.power.start('pve1', id)).toEqual({ changed: false });
      expect((await pve.power.status('pve1', id)).status).toBe('running');
      const down = await pve.power.shutdown('pve1', id, { timeoutS: 5 });
      expect(down.task).toMatchObject({ exitstatus: 'OK', warnings: 0 });
      expect(await pve.power.shutdown('pve1', id)).toEqual({ changed: false });
      expect(await pve.power.stop('pve1', id)).toEqual({ changed: false });
    });

    it('a guest that ignores ACPI: shutdown fails after its timeout, or ends WARNINGS: 1 with forceStop', async () => {
      const id = vmid();
      await shell(id);
      await pve.power.start('pve1', id);
      fx.sim.cluster.vms.get(id)!.guestAcpi = false;
      const timedOut = await failure(() => pve.power.shutdown('pve1', id, { timeoutS: 1 }));
      expect(timedOut).toBeInstanceOf(ProxmoxTaskError);
      expect(timedOut.exitstatus).toBe('VM quit/powerdown failed - got timeout');
      expect(timedOut.retryable).toBe(true);
      expect((await pve.power.status('pve1', id)).status).toBe('running');
      const forced = await pve.power.shutdown('pve1', id, { timeoutS: 1, forceStop: true });
      expect(forced.task).toMatchObject({
        exitstatus: 'WARNINGS: 1',
        warnings: 1,
        warningLines: ['WARN: VM still running - terminating now with SIGTERM'],
      });
      expect((await pve.power.status('pve1', id)).status).toBe('stopped');
    });

    it('gives up waiting at the deadline with a retryable error that names the task', async () => {
      const id = vmid();
      await shell(id);
      await pve.power.start('pve1', id);
      fx.sim.cluster.vms.get(id)!.guestAcpi = false;
      const upid = (
        await fx.raw('POST', `/api2/json/nodes/pve1/qemu/${id}/status/shutdown`, {
          form: { timeout: '2', forceStop: '1' },
        })
      ).body.data;
      const progress: number[] = [];
      const err = await failure(() =>
        pve.waitForTask(upid, { timeoutMs: 300, onProgress: (p) => progress.push(p.elapsedMs) }),
      );
      expect(err).toBeInstanceOf(ProxmoxTaskTimeoutError);
      expect(err.upid).toBe(upid);
      expect(progress.length).toBeGreaterThan(2);
      expect((await pve.waitForTask(upid)).warnings).toBe(1);
    });

    it('a failed task with a long log reports the last lines of it, and warnings near its end', async () => {
      const long = (fail: boolean) =>
        fx.sim.cluster.tasks.start({ node: 'pve2', type: 'qmimport', id: '0', user: 'root@pam' }, async (ctx) => {
          for (let i = 1; i <= 7000; i++) ctx.log(`transferred ${i} of 7000`);
          if (!fail) return ctx.warn('sparse detection unavailable');
          throw new Error('import failed: no space left on device');
        }).upid;
      const err = await failure(() => pve.waitForTask(long(true)));
      expect(err).toBeInstanceOf(ProxmoxTaskError);
      expect(err.log.slice(-3)).toEqual([
        'transferred 6999 of 7000',
        'transferred 7000 of 7000',
        'TASK ERROR: import failed: no space left on device',
      ]);
      expect((await pve.waitForTask(long(false))).warningLines).toEqual(['WARN: sparse detection unavailable']);
      // The simulator answers like PVE: `total` beside the page, limit 0 reads to the end.
      const page = await fx.raw(
        'GET',
        `/api2/json/nodes/pve2/tasks/${encodeURIComponent(long(false))}/log?start=6999&limit=0`,
      );
      expect(page.body.total).toBeGreaterThan(7000);
    });
  });

  describe('storage, ACL', () => {
    it('lists ISO content through the API', async () => {
      expect(await pve.storage.find('pve2', `local:iso/${SAMPLE_ISO}`, 'iso')).toMatchObject({
        volid: `local:iso/${SAMPLE_ISO}`,
        format: 'iso',
        size: 65536,
      });
      expect(await pve.storage.find('pve2', 'local:iso/missing.iso', 'iso')).toBeUndefined();
      expect(await failure(() => pve.storage.content('pve1', 'nope'))).toBeInstanceOf(ProxmoxNotFoundError);
    });

    it('sets and removes ACL entries, writing only when needed', async () => {
      const spec = { path: '/sdn/zones/lab', roles: ['PVESDNUser'], tokens: [fx.credentials.tokenId] };
      expect(await pve.acl.ensure(spec)).toEqual({ changed: true });
      expect(await pve.acl.ensure(spec)).toEqual({ changed: false });
      expect(await pve.acl.list()).toContainEqual({
        path: '/sdn/zones/lab',
        type: 'token',
        ugid: fx.credentials.tokenId,
        roleid: 'PVESDNUser',
        propagate: true,
      });
      expect(await pve.acl.remove(spec)).toEqual({ changed: true });
      expect(await pve.acl.remove(spec)).toEqual({ changed: false });
      const err = await failure(() => pve.acl.ensure({ path: '/vms', roles: ['NoSuchRole'], users: ['ferry@pve'] }));
      expect(err.message).toMatch(/role 'NoSuchRole' does not exist/);
    });
  });

  describe('SDN', () => {
    it(`creates a VLAN zone and vnets, applies them${flavour === '9.1' ? ' under the SDN lock' : ''}, and repeating writes nothing`, async () => {
      const first = await pve.sdn.ensure({
        zones: [{ zone: 'lab', type: 'vlan', bridge: 'vmbr0' }],
        vnets: [{ vnet: 'v100', zone: 'lab', tag: 100, alias: 'servers' }],
      });
      expect(first).toMatchObject({ created: ['lab', 'v100'], updated: [], applied: true });
      expect(fx.sim.cluster.sdnRunning.vnets.v100).toMatchObject({ zone: 'lab', tag: '100' });
      expect(fx.sim.cluster.sdnLockToken).toBeUndefined();
      const lockCalls = fx.sim.requests.filter((r) => r.path === '/cluster/sdn/lock');
      expect(lockCalls.length).toBe(flavour === '9.1' ? 1 : 0);
      const mark = fx.sim.requests.length;
      expect(
        await pve.sdn.ensure({
          zones: [{ zone: 'lab', type: 'vlan', bridge: 'vmbr0' }],
          vnets: [{ vnet: 'v100', zone: 'lab', tag: 100, alias: 'servers' }],
        }),
      ).toMatchObject({ applied: false });
      expect(fx.sim.requests.slice(mark).filter((r) => r.method !== 'GET')).toEqual([]);
      const updated = await pve.sdn.ensure({
        vnets: [
          { vnet: 'v100', zone: 'lab', tag: 100, alias: 'renamed' },
          { vnet: 'v101', zone: 'lab', tag: 101 },
        ],
      });
      expect(updated).toMatchObject({ created: ['v101'], updated: ['v100'], applied: true });
      expect(fx.sim.cluster.sdnRunning.vnets.v100!.alias).toBe('renamed');
    });

    it('an error inside the flow leaves no pending change behind (9.1: rolled back and the lock released)', async () => {
      const err = await failure(() =>
        pve.sdn.ensure({
          vnets: [
            { vnet: 'v102', zone: 'lab', tag: 102 },
            { vnet: 'v103', zone: 'lab', tag: 100 },
          ],
        }),
      );
      expect(err.message).toMatch(/tag 100 already exist in vnet v100/);
      expect(fx.sim.cluster.sdnLockToken).toBeUndefined();
      if (flavour === '9.1') {
        expect(await pve.sdn.pending()).toEqual([]);
        expect(fx.sim.cluster.sdn.vnets.v102).toBeUndefined();
      } else {
        // PVE 8 has no rollback: the first write stays pending; a call that manages it applies it, one that does not leaves it.
        expect(await pve.sdn.pending()).toEqual(['vnet v102']);
        expect((await pve.sdn.ensure({})).applied).toBe(false);
        expect((await pve.sdn.ensure({ vnets: [{ vnet: 'v102', zone: 'lab', tag: 102 }] })).applied).toBe(true);
        expect(await pve.sdn.pending()).toEqual([]);
      }
    });

    it("never applies someone else's pending changes along with its own", async () => {
      fx.sim.cluster.sdn.zones.gui = { type: 'simple' }; // a GUI edit, not applied
      try {
        const mark = fx.sim.requests.length;
        const err = await failure(() => pve.sdn.ensure({ zones: [{ zone: 'mine', type: 'simple' }] }));
        expect(err).toBeInstanceOf(ProxmoxLockedError);
        expect(err.message).toMatch(/pending changes ferry did not make \(zone gui\)/);
        expect(fx.sim.requests.slice(mark).filter((r) => r.method !== 'GET')).toEqual([]);
        expect(fx.sim.cluster.sdnRunning.zones.gui).toBeUndefined();
        expect(fx.sim.cluster.sdnLockToken).toBeUndefined();
        // Nothing of ours to write or apply: no apply, no failure.
        expect(await pve.sdn.ensure({ zones: [{ zone: 'lab', type: 'vlan', bridge: 'vmbr0' }] })).toMatchObject({
          applied: false,
        });
      } finally {
        delete fx.sim.cluster.sdn.zones.gui;
      }
    });

    it('applies its own pending changes left by an earlier attempt (9.1: allowing them only after the plain lock is refused)', async () => {
      // Written by an earlier attempt that stopped before the apply; the vnet is in the zone the call manages.
      fx.sim.cluster.sdn.zones.left = { type: 'simple' };
      fx.sim.cluster.sdn.vnets.lv1 = { zone: 'left' };
      const mark = fx.sim.requests.length;
      // take-over: a refusal for pending changes is not a held lock, so nothing is forced off.
      expect(
        await pve.sdn.ensure({ zones: [{ zone: 'left', type: 'simple' }] }, { heldLock: 'take-over' }),
      ).toMatchObject({ created: [], applied: true });
      expect(fx.sim.cluster.sdnRunning.zones.left).toEqual({ type: 'simple' });
      expect(fx.sim.cluster.sdnRunning.vnets.lv1).toEqual({ zone: 'left' });
      const locks = fx.sim.requests.slice(mark).filter((r) => r.path === '/cluster/sdn/lock');
      expect(locks.map((r) => `${r.method} ${r.status}`)).toEqual(flavour === '9.1' ? ['POST 500', 'POST 200'] : []);
      expect(fx.sim.cluster.sdnLockToken).toBeUndefined();
      await pve.sdn.remove({ vnets: ['lv1'], zones: ['left'] });
    });

    it('reports a reload that warned (a node failed) or failed after the apply, without rolling back, to be retried', async () => {
      fx.sim.cluster.settings.sdnReloadFailNodes = ['pve2'];
      try {
        const err = await failure(() => pve.sdn.ensure({ zones: [{ zone: 'warn', type: 'simple' }] }));
        // Applying again only reloads again: retried by its activity, the message kept for a person.
        expect(err.category).toBe('transient');
        expect(err.message).toMatch(/SDN config applied, but the network reload task .* ended WARNINGS: 1/);
        expect(err.message).toMatch(/WARN: pve2: network reload failed/);
      } finally {
        fx.sim.cluster.settings.sdnReloadFailNodes = [];
      }
      expect(fx.sim.cluster.sdnRunning.zones.warn).toEqual({ type: 'simple' });

      const mark = fx.sim.requests.length;
      fx.sim.faults.set({ seed: 1, taskFailureRate: 1, pathPattern: '^/cluster/sdn$' });
      try {
        const err = await failure(() => pve.sdn.ensure({ zones: [{ zone: 'fail', type: 'simple' }] }));
        expect(err.category).toBe('transient');
        expect(err.message).toMatch(/network reload task .* ended task failed \(fault injected/);
      } finally {
        fx.sim.faults.set(undefined);
      }
      // The config was committed by the apply; no rollback, and no lock (which may be someone else's by now) forced off.
      expect(fx.sim.cluster.sdnRunning.zones.fail).toEqual({ type: 'simple' });
      // Nothing is left to write, so only `reapply` (the activity's retry) reloads the network again.
      expect(await pve.sdn.ensure({ zones: [{ zone: 'fail', type: 'simple' }] })).toMatchObject({ applied: false });
      expect(
        await pve.sdn.ensure({ zones: [{ zone: 'fail', type: 'simple' }] }, { reapply: true, heldLock: 'take-over' }),
      ).toMatchObject({ created: [], applied: true, task: { exitstatus: 'OK' } });
      expect(
        fx.sim.requests
          .slice(mark)
          .filter(
            (r) => r.path === '/cluster/sdn/rollback' || (r.path === '/cluster/sdn/lock' && r.method === 'DELETE'),
          ),
      ).toEqual([]);
      expect(fx.sim.cluster.sdnLockToken).toBeUndefined();
      await pve.sdn.remove({ zones: ['warn', 'fail'] });
    });

    it('validates ids and VLAN rules', async () => {
      await expect(pve.sdn.ensure({ vnets: [{ vnet: 'too-long-name', zone: 'lab', tag: 5 }] })).rejects.toThrow(
        /2–8 letters/,
      );
      const untagged = await failure(() => pve.sdn.ensure({ vnets: [{ vnet: 'v104', zone: 'lab' }] }));
      expect(untagged.message).toMatch(/missing vlan tag/);
      const noBridge = await failure(() => pve.sdn.ensure({ zones: [{ zone: 'nobr', type: 'vlan' }] }));
      expect(noBridge).toBeInstanceOf(ProxmoxParameterError);
      expect(noBridge.errors).toEqual({ bridge: 'property is missing and it is not optional' });
      await pve.sdn.remove({ vnets: ['v100', 'v101', 'v102'], zones: ['lab'] });
      expect(fx.sim.cluster.sdnRunning).toEqual({ zones: {}, vnets: {} });
    });

    if (flavour === '9.1') {
      it('waits its turn when someone else holds the SDN lock (locked, retryable)', async () => {
        fx.sim.cluster.sdnLockToken = 'someone-else';
        try {
          const err = await failure(() => pve.sdn.ensure({ zones: [{ zone: 'other', type: 'simple' }] }));
          expect(err).toBeInstanceOf(ProxmoxLockedError);
          expect(err.retryable).toBe(true);
        } finally {
          fx.sim.cluster.sdnLockToken = undefined;
        }
        expect((await pve.sdn.ensure({ zones: [{ zone: 'other', type: 'simple' }] })).applied).toBe(true);
        await pve.sdn.remove({ zones: ['other'] });
      });
    }
  });
});
