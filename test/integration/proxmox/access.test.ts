import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ProxmoxAgentNotRunningError, ProxmoxPermissionError } from '../../../src/proxmox';
import { FERRY_ROLE_PRIVILEGES } from '../../../src/proxmox/role';
import { REPO_ROOT } from '../../../src/paths';
import { rootTicket } from '../../helpers/pve-fixtures';
import { failure, FLAVOURS, startSim, type SimFixture } from '../../helpers/proxmox';

/**
 * The simulator's access model against PVE's (pve-access-control): roles propagate down the ACL tree,
 * a deeper entry replaces what was inherited, a user's entries win over its groups', NoAccess wins,
 * a pool's ACL reaches its members, a privilege-separated token holds only what both it and its user
 * have; /access/permissions computes it; a refused call answers 403 naming the path and privilege as
 * PVE's raise_perm_exc does. And ferry's own minimal role (docs/proxmox.md): a token holding exactly it
 * runs ferry's operations through ferry's client, and without any one of its privileges the call that
 * needs it is refused as PVE refuses it.
 */
describe.each(FLAVOURS)('access model, PVE %s', (flavour) => {
  let fx: SimFixture;
  let root: Record<string, string>;
  const major = flavour === '8.4' ? 8 : 9;

  /** A request as root@pam (ticket); it must succeed. */
  async function asRoot(method: string, apiPath: string, form?: Record<string, string>) {
    const r = await fx.raw(method, `/api2/json${apiPath}`, { headers: root, ...(form ? { form } : {}) });
    expect([method, apiPath, r.status, r.body?.message]).toEqual([method, apiPath, 200, undefined]);
    return r.body.data;
  }
  const permissions = async (userid: string, p: string) =>
    Object.keys((await asRoot('GET', `/access/permissions?userid=${encodeURIComponent(userid)}&path=${p}`))[p]).sort();
  const privsOf = async (role: string) => Object.keys(await asRoot('GET', `/access/roles/${role}`)).sort();
  const asToken = (id: string, secret: string, method: string, apiPath: string, form?: Record<string, string>) =>
    fx.raw(method, `/api2/json${apiPath}`, {
      headers: { authorization: `PVEAPIToken=${id}=${secret}` },
      ...(form ? { form } : {}),
    });

  beforeAll(async () => {
    fx = await startSim(flavour);
    root = (await rootTicket(fx)).headers;
    await asRoot('POST', '/access/groups', { groupid: 'ops' });
    await asRoot('POST', '/access/users', { userid: 'alice@pve', password: 'alice-password', groups: 'ops' });
    await asRoot('POST', '/access/users', { userid: 'bob@pve', password: 'bob-password-1' });
  });
  afterAll(() => fx.stop());

  it('propagation, a deeper entry replacing the inherited roles, a user over its groups, NoAccess winning', async () => {
    await asRoot('PUT', '/access/acl', { path: '/vms', roles: 'PVEVMUser', groups: 'ops' });
    await asRoot('PUT', '/access/acl', { path: '/vms/200', roles: 'PVEAuditor', users: 'alice@pve' });
    await asRoot('PUT', '/access/acl', { path: '/sdn', roles: 'PVESDNUser', users: 'alice@pve', propagate: '0' });
    await asRoot('PUT', '/access/acl', { path: '/storage', roles: 'PVEDatastoreUser', groups: 'ops' });
    await asRoot('PUT', '/access/acl', { path: '/storage/local', roles: 'NoAccess', groups: 'ops' });
    expect(await permissions('alice@pve', '/vms/300')).toEqual(await privsOf('PVEVMUser'));
    // The user's own entry on /vms/200 replaces what the group's /vms entry handed down.
    expect(await permissions('alice@pve', '/vms/200')).toEqual(await privsOf('PVEAuditor'));
    expect(await permissions('alice@pve', '/sdn')).toEqual(await privsOf('PVESDNUser'));
    expect(await permissions('alice@pve', '/sdn/zones')).toEqual([]); // propagate=0 stops at /sdn
    expect(await permissions('alice@pve', '/storage/local-lvm')).toEqual(await privsOf('PVEDatastoreUser'));
    expect(await permissions('alice@pve', '/storage/local')).toEqual([]);
    expect(await permissions('bob@pve', '/vms/300')).toEqual([]);
    // The ACL list: every entry for root, in iterate_acl_tree's order (a path, then the paths below it by name).
    const acl = (await asRoot('GET', '/access/acl')) as Array<{ path: string; ugid: string }>;
    expect(acl.map((e) => `${e.path} ${e.ugid}`)).toEqual([
      '/ auditor@pve',
      '/ ferry@pve',
      '/sdn alice@pve',
      '/storage ops',
      '/storage/local ops',
      '/vms ops',
      '/vms/200 alice@pve',
    ]);
  });

  it('a pool ACL reaches its members; privilege-separated tokens hold what both they and their user have', async () => {
    await fx.sim.cluster.tasks.get(await asRoot('POST', '/nodes/pve1/qemu', { vmid: '210', pool: 'migrated' }))!.done;
    await asRoot('PUT', '/access/acl', { path: '/pool/migrated', roles: 'PVEVMAdmin', users: 'bob@pve' });
    expect(await permissions('bob@pve', '/vms/210')).toEqual(await privsOf('PVEVMAdmin'));
    expect(await permissions('bob@pve', '/vms/211')).toEqual([]);

    const sep = await asRoot('POST', '/access/users/alice@pve/token/sep', {});
    const full = await asRoot('POST', '/access/users/alice@pve/token/full', { privsep: '0' });
    expect(sep.info).toEqual({ privsep: 1 });
    expect(full.info).toEqual({ privsep: '0' }); // the parameter as it came
    // A separated token without ACL entries of its own holds nothing; the other acts as alice.
    expect(await permissions('alice@pve!sep', '/vms/300')).toEqual([]);
    expect(await permissions('alice@pve!full', '/vms/300')).toEqual(await privsOf('PVEVMUser'));
    await asRoot('PUT', '/access/acl', { path: '/', roles: 'PVEAdmin', tokens: 'alice@pve!sep' });
    // PVEAdmin on / for the token, PVEVMUser on /vms for alice: the token gets the intersection.
    expect(await permissions('alice@pve!sep', '/vms/300')).toEqual(await privsOf('PVEVMUser'));
    expect(await permissions('alice@pve!sep', '/nodes/pve1')).toEqual([]);
    const denied = await asToken('alice@pve!sep', sep.value, 'GET', '/nodes/pve1/status');
    expect([denied.status, denied.body.message]).toEqual([403, 'Permission check failed (/nodes/pve1, Sys.Audit)\n']);
    const allowed = await asToken('alice@pve!sep', sep.value, 'GET', '/nodes/pve1/qemu/210/config');
    expect(allowed.status).toBe(200);
    // Lists show only what the caller may see: guests (VM.Audit under /vms), the storages but `local`
    // (NoAccess), nodes without their figures (no Sys.Audit), no pool (no Pool.Audit on /pool).
    const resources = (await asToken('alice@pve!sep', sep.value, 'GET', '/cluster/resources')).body.data as Array<
      Record<string, unknown>
    >;
    expect([...new Set(resources.map((r) => r.type))].sort()).toEqual(['lxc', 'node', 'qemu', 'storage']);
    expect(resources.filter((r) => r.type === 'storage' && r.storage === 'local')).toEqual([]);
    expect(resources.find((r) => r.type === 'node')).toEqual({
      id: 'node/pve1',
      node: 'pve1',
      type: 'node',
      status: 'online',
      level: '',
    });
    // A token may not use what its user may not: a user's own permissions dump needs no privilege, another's Sys.Audit.
    const other = await asToken('alice@pve!sep', sep.value, 'GET', '/access/permissions?userid=bob@pve');
    expect([other.status, other.body.message]).toEqual([403, 'Permission check failed (/access, Sys.Audit)\n']);
  });

  it("ferry's minimal role runs ferry's operations; without any one of its privileges the call that needs it fails as on PVE", async () => {
    const privileges = FERRY_ROLE_PRIVILEGES[major];
    // The role as docs/proxmox.md documents it.
    const docs = readFileSync(path.join(REPO_ROOT, 'docs', 'proxmox.md'), 'utf8');
    const documented = new RegExp(`PVE ${major}: \`([^\`]+)\``).exec(docs)?.[1]?.split(',');
    expect(documented).toEqual([...privileges]);

    await asRoot('POST', '/access/roles', { roleid: 'Ferry', privs: privileges.join(',') });
    await asRoot('POST', '/access/users', { userid: 'ferry-min@pve' });
    const token = await asRoot('POST', '/access/users/ferry-min@pve/token/ci', {});
    for (const subject of [{ users: 'ferry-min@pve' }, { tokens: 'ferry-min@pve!ci' }] as Array<Record<string, string>>)
      await asRoot('PUT', '/access/acl', { path: '/', roles: 'Ferry', ...subject });
    const pve = fx.client({ auth: { kind: 'token', tokenId: 'ferry-min@pve!ci', secret: token.value } });

    await pve.sdn.ensure({
      zones: [{ zone: 'fz', type: 'vlan', bridge: 'vmbr0' }],
      vnets: [{ vnet: 'fv', zone: 'fz', tag: 300 }],
    });
    await pve.acl.ensure({ path: '/sdn/zones/fz', roles: ['PVESDNUser'], users: ['bob@pve'] });
    await pve.vms.create({
      node: 'pve1',
      vmid: 5100,
      name: 'least',
      machine: 'q35',
      bios: 'ovmf',
      efidisk: { storage: 'local-lvm' },
      cdroms: [{ slot: 'ide2' }],
      cores: 2,
      memory: 1024,
      scsihw: 'virtio-scsi-single',
      agent: true,
      nics: [{ slot: 'net0', bridge: 'fv' }],
    });
    await pve.disks.ensure('pve1', 5100, 'scsi0', { storage: 'local-lvm', sizeGiB: 1 });
    await pve.config.update('pve1', 5100, {
      set: {
        ide0: 'local-lvm:cloudinit',
        ipconfig0: 'ip=192.0.2.90/24',
        cores: '4',
        memory: '2048',
        description: 'least privilege',
      },
    });
    await pve.disks.resize('pve1', 5100, 'scsi0', '2G');
    await pve.power.start('pve1', 5100);
    expect(await failure(() => pve.agent.ping('pve1', 5100))).toBeInstanceOf(ProxmoxAgentNotRunningError);
    await pve.ha.ensureResource({ sid: 'vm:5100', state: 'stopped' });
    const capacity = await pve.capacity.read();
    expect(capacity.nodes.every((n) => n.memoryBytes > 0)).toBe(true);
    expect(capacity.storages.map((s) => s.name).sort()).toEqual(['local', 'local-lvm', 'nfs-migration']);
    await pve.power.stop('pve1', 5100);
    expect((await pve.vms.delete('pve1', 5100, { purge: true, destroyUnreferencedDisks: true })).deleted).toBe(true);

    // Without one privilege, the call that needs it: PVE's 403, naming the path and the privilege.
    await asRoot('POST', '/nodes/pve1/qemu', { vmid: '5200', scsi0: 'local-lvm:1' });
    const agent = major === 8 ? 'VM.Monitor' : 'VM.GuestAgent.Audit|VM.GuestAgent.Unrestricted';
    const needs: Record<string, [string, string, Record<string, string> | undefined, string]> = {
      'VM.Allocate': ['POST', '/nodes/pve1/qemu', { vmid: '5300' }, ''],
      'VM.Audit': ['GET', '/nodes/pve1/qemu/5200/config', undefined, '/vms/5200, VM.Audit'],
      'VM.Config.CPU': ['PUT', '/nodes/pve1/qemu/5200/config', { cores: '2' }, '/vms/5200, VM.Config.CPU'],
      'VM.Config.Memory': ['PUT', '/nodes/pve1/qemu/5200/config', { memory: '768' }, '/vms/5200, VM.Config.Memory'],
      'VM.Config.Options': [
        'PUT',
        '/nodes/pve1/qemu/5200/config',
        { description: 'x' },
        '/vms/5200, VM.Config.Options',
      ],
      'VM.Config.HWType': [
        'PUT',
        '/nodes/pve1/qemu/5200/config',
        { scsihw: 'virtio-scsi-pci' },
        '/vms/5200, VM.Config.HWType',
      ],
      'VM.Config.Disk': ['PUT', '/nodes/pve1/qemu/5200/config', { scsi1: 'local-lvm:1' }, '/vms/5200, VM.Config.Disk'],
      'VM.Config.CDROM': [
        'PUT',
        '/nodes/pve1/qemu/5200/config',
        { ide2: 'none,media=cdrom' },
        '/vms/5200, VM.Config.CDROM',
      ],
      'VM.Config.Cloudinit': [
        'PUT',
        '/nodes/pve1/qemu/5200/config',
        { ide0: 'local-lvm:cloudinit' },
        '/vms/5200, VM.Config.Cloudinit',
      ],
      'VM.Config.Network': [
        'PUT',
        '/nodes/pve1/qemu/5200/config',
        { net1: 'virtio,bridge=vmbr0' },
        '/vms/5200, VM.Config.Network',
      ],
      'VM.PowerMgmt': ['POST', '/nodes/pve1/qemu/5200/status/start', {}, '/vms/5200, VM.PowerMgmt'],
      [major === 8 ? 'VM.Monitor' : 'VM.GuestAgent.Audit']: [
        'POST',
        '/nodes/pve1/qemu/5200/agent/ping',
        {},
        `/vms/5200, ${agent}`,
      ],
      'Datastore.AllocateSpace': [
        'PUT',
        '/nodes/pve1/qemu/5200/config',
        { scsi1: 'local-lvm:1' },
        '/storage/local-lvm, Datastore.AllocateSpace',
      ],
      'SDN.Allocate': ['POST', '/cluster/sdn/zones', { zone: 'gz', type: 'simple' }, '/sdn/zones, SDN.Allocate'],
      'SDN.Use': [
        'PUT',
        '/nodes/pve1/qemu/5200/config',
        { net1: 'virtio,bridge=vmbr0' },
        '/sdn/zones/localnetwork/vmbr0, SDN.Use',
      ],
      'Sys.Audit': ['GET', '/cluster/ha/resources', undefined, '/, Sys.Audit'],
      'Sys.Console': ['POST', '/cluster/ha/resources', { sid: 'vm:5200' }, '/, Sys.Console'],
      'Permissions.Modify': [
        'PUT',
        '/access/acl',
        { path: '/sdn/zones/fz', roles: 'PVESDNUser', users: 'alice@pve' },
        '/sdn/zones/fz, Permissions.Modify',
      ],
    };
    expect(Object.keys(needs).sort()).toEqual([...privileges].sort());
    for (const privilege of privileges) {
      await asRoot('PUT', '/access/roles/Ferry', { privs: privileges.filter((p) => p !== privilege).join(',') });
      const [method, apiPath, form, what] = needs[privilege]!;
      const res = await asToken('ferry-min@pve!ci', token.value, method, apiPath, form);
      const message = `Permission check failed${what ? ` (${what})` : ''}\n`;
      expect([privilege, res.status, res.body.message]).toEqual([privilege, 403, message]);
    }
    // The drive checks run where update_vm_api loads the config: for the asynchronous POST inside the
    // qmconfig worker, so there the request is accepted and its task fails.
    await asRoot('PUT', '/access/roles/Ferry', { privs: privileges.filter((p) => p !== 'VM.Config.Disk').join(',') });
    const post = await asToken('ferry-min@pve!ci', token.value, 'POST', '/nodes/pve1/qemu/5200/config', {
      scsi1: 'local-lvm:1',
    });
    expect(post.status).toBe(200);
    const postTask = fx.sim.cluster.tasks.get(post.body.data as string)!;
    await postTask.done;
    expect(postTask.exitstatus).toBe('Permission check failed (/vms/5200, VM.Config.Disk)');
    expect(fx.sim.cluster.vms.get(5200)!.config.scsi1).toBeUndefined();

    // Through ferry's own client such a refusal is a permission error naming the privilege, never retried.
    await asRoot('PUT', '/access/roles/Ferry', { privs: privileges.filter((p) => p !== 'VM.PowerMgmt').join(',') });
    const refused = await failure(() => pve.power.start('pve1', 5200));
    expect(refused).toBeInstanceOf(ProxmoxPermissionError);
    expect([refused.retryable, refused.message]).toEqual([false, expect.stringContaining('(/vms/5200, VM.PowerMgmt)')]);
    await asRoot('PUT', '/access/roles/Ferry', { privs: privileges.join(',') });
  });
});
