import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { toolPath } from '../../../lab/tools';
import { REPO_ROOT } from '../../../src/paths';
import { serveFiles } from '../../helpers/pve-fixtures';
import { FLAVOURS, startSim, type SimFixture } from '../../helpers/proxmox';

/**
 * Infrastructure as code against the simulator: OpenTofu v1.10.6 with the bpg/proxmox provider v0.80.0
 * (both built from the Go module proxy by scripts/setup.d/60-real-clients.sh; the provider taken through
 * dev_overrides) applies test/real-clients/opentofu/main.tf as a user would: its start-up reads (nodes,
 * a node, datastores, VMs, users, roles, groups, pools), permissions (a role, a group with an ACL, a
 * user, a privilege-separated token and its ACL), storage content (an ISO by download-url after
 * query-url-metadata, another uploaded through the API), and a VM through create -> update -> clone ->
 * destroy, every plan after an apply empty. TLS is verified against the simulator's CA. A second VM has
 * nothing to boot: stopping it, the provider's graceful shutdown runs into its timeout while PVE's
 * forceStop stops it, as on PVE.
 */
describe.each(FLAVOURS)('OpenTofu with the bpg/proxmox provider against the simulator, PVE %s', (flavour) => {
  jest.setTimeout(600_000);
  let fx: SimFixture;
  let work: string;
  let env: Record<string, string>;
  let web: Awaited<ReturnType<typeof serveFiles>>;
  const iso = Buffer.alloc(256 * 1024, 0x41);

  /** Runs tofu in the working folder: its exit code, its standard output and both streams together. */
  function tofu(...args: string[]): Promise<{ code: number; stdout: string; out: string }> {
    const flags = args[0] === 'output' ? ['-no-color'] : ['-no-color', '-input=false'];
    return new Promise((resolve) => {
      execFile(toolPath('tofu'), [...args, ...flags], { cwd: work, env, timeout: 300_000 }, (error, stdout, stderr) =>
        resolve({
          code: error ? Number((error as { code?: number }).code ?? 1) : 0,
          stdout,
          out: `${stdout}${stderr}`,
        }),
      );
    });
  }
  const vm = (vmid: number) => fx.sim.cluster.vms.get(vmid);
  const tasksOf = (type: string, id: string) =>
    fx.sim.cluster.tasks.history.filter((t) => t.type === type && t.id === id);

  beforeAll(async () => {
    fx = await startSim(flavour);
    web = await serveFiles({ '/installer.iso': iso });
    work = mkdtempSync(path.join(tmpdir(), `ferry-tofu-${flavour}-`));
    copyFileSync(path.join(REPO_ROOT, 'test', 'real-clients', 'opentofu', 'main.tf'), path.join(work, 'main.tf'));
    writeFileSync(path.join(work, 'tools.iso'), Buffer.alloc(128 * 1024, 0x42));
    const providerDir = path.dirname(realpathSync(toolPath('terraform-provider-proxmox')));
    writeFileSync(
      path.join(work, 'tofu.rc'),
      `provider_installation {\n  dev_overrides {\n    "bpg/proxmox" = "${providerDir}"\n  }\n  direct {}\n}\n`,
    );
    env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: work,
      TF_CLI_CONFIG_FILE: path.join(work, 'tofu.rc'),
      TF_IN_AUTOMATION: '1',
      SSL_CERT_FILE: fx.sim.caFile,
      TF_VAR_endpoint: `${fx.sim.url}/`,
      TF_VAR_api_token: `${fx.credentials.tokenId}=${fx.credentials.tokenSecret}`,
      TF_VAR_iso_url: `${web.url}/installer.iso`,
      TF_VAR_iso_sha256: createHash('sha256').update(iso).digest('hex'),
      TF_VAR_upload_path: path.join(work, 'tools.iso'),
    };
  });
  afterAll(async () => {
    await web.close();
    await fx.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('start-up reads, permissions, storage content, and a VM through create → update → clone → destroy', async () => {
    const firstRequest = fx.sim.requests.length;

    // Create: everything, the VM started.
    const created = await tofu('apply', '-auto-approve');
    expect([created.code, created.out]).toEqual([
      0,
      expect.stringContaining('Apply complete! Resources: 9 added, 0 changed, 0 destroyed.'),
    ]);
    const outputs = JSON.parse((await tofu('output', '-json')).stdout) as Record<string, { value: unknown }>;
    expect(outputs.nodes!.value).toEqual(['pve1', 'pve2', 'pve3']);
    expect(outputs.datastores!.value).toEqual(['local', 'local-lvm', 'nfs-migration']);
    expect(outputs.vms!.value).toEqual(expect.arrayContaining([4100, 4102]));
    expect(vm(4100)!.status).toBe('running');
    expect(vm(4100)!.config).toMatchObject({
      cores: '2',
      memory: '1024',
      ide2: 'local:iso/tofu-installer.iso,media=cdrom',
      description: 'made by OpenTofu',
    });
    expect(vm(4100)!.config.net0).toContain(`=${outputs.web_mac!.value as string},bridge=vmbr0`);
    const isos = (await fx.client().storage.content('pve1', 'local', { content: 'iso' })).map((i) => [i.volid, i.size]);
    expect(isos).toEqual(
      expect.arrayContaining([
        ['local:iso/tofu-installer.iso', iso.length],
        ['local:iso/tofu-tools.iso', 128 * 1024],
      ]),
    );

    // The permissions it set: the token holds its user's group's role on /vms, nothing on the node.
    const token = outputs.operator_token!.value as string;
    expect(token).toMatch(/^tofu-op@pve!ci=[0-9a-f-]{36}$/);
    const asToken = (p: string) =>
      fx.raw('GET', `/api2/json${p}`, { headers: { authorization: `PVEAPIToken=${token}` } });
    expect((await asToken('/nodes/pve1/qemu/4100/status/current')).status).toBe(200);
    const node = await asToken('/nodes/pve1/status');
    expect([node.status, node.body.message]).toEqual([403, 'Permission check failed (/nodes/pve1, Sys.Audit)\n']);
    expect(Object.keys((await asToken('/access/permissions?path=/vms/4100')).body.data['/vms/4100']).sort()).toEqual([
      'Datastore.Audit',
      'VM.Audit',
      'VM.PowerMgmt',
    ]);
    expect(fx.sim.cluster.acl).toEqual(
      expect.arrayContaining([
        { path: '/vms', type: 'group', ugid: 'tofu-ops', roleid: 'TofuOperator', propagate: 1 },
        { path: '/vms', type: 'token', ugid: 'tofu-op@pve!ci', roleid: 'TofuOperator', propagate: 1 },
      ]),
    );

    // Update: the web VM (a guest with an OS, answering ACPI) takes its new CPU and memory with a reboot;
    // the blank VM, asked to stop, ignores the ACPI button: the provider gives up after its 2 s, PVE's
    // forceStop stops it (the task ends WARNINGS: 1), and the next apply finds it stopped.
    await fx.admin().setGuest(4100, { guestAcpi: true });
    const update = [
      '-var',
      'cores=4',
      '-var',
      'memory=2048',
      '-var',
      'description=updated by OpenTofu',
      '-var',
      'blank_started=false',
    ];
    const updated = await tofu('apply', '-auto-approve', ...update);
    expect(updated.code).toBe(1);
    expect(updated.out).toContain('proxmox_virtual_environment_vm.web: Modifications complete');
    expect(updated.out).toMatch(
      /error waiting for VM shutdown: timeout while waiting for task "UPID:pve1:[^"]*:qmshutdown:4102:/,
    );
    await fx.sim.cluster.tasks.idle();
    const [shutdown] = tasksOf('qmshutdown', '4102');
    expect([shutdown!.exitstatus, shutdown!.log]).toEqual([
      'WARNINGS: 1',
      expect.arrayContaining(['WARN: VM still running - terminating now with SIGTERM']),
    ]);
    expect(vm(4102)!.status).toBe('stopped');
    expect(tasksOf('qmreboot', '4100').map((t) => t.exitstatus)).toEqual(['OK']);
    expect(vm(4100)!.config).toMatchObject({ cores: '4', memory: '2048', description: 'updated by OpenTofu' });
    expect(vm(4100)!.pending).toEqual({});
    expect((await tofu('apply', '-auto-approve', ...update)).code).toBe(0);

    // Clone the running VM (full, onto local-lvm); then nothing is left to change.
    const cloned = await tofu('apply', '-auto-approve', ...update, '-var', 'clone=true');
    expect([cloned.code, cloned.out]).toEqual([
      0,
      expect.stringContaining('Resources: 1 added, 0 changed, 0 destroyed.'),
    ]);
    expect(vm(4101)!.config).toMatchObject({
      name: 'tofu-web-copy',
      cores: '4',
      memory: '2048',
      scsi0: expect.stringMatching(/^local-lvm:vm-4101-disk-0,/),
    });
    const plan = await tofu('plan', '-detailed-exitcode', ...update, '-var', 'clone=true');
    expect([plan.code, plan.out]).toEqual([0, expect.stringContaining('No changes.')]);

    // Destroy: all of it (the running VM shut down first, gracefully).
    const destroyed = await tofu('destroy', '-auto-approve', ...update, '-var', 'clone=true');
    expect([destroyed.code, destroyed.out]).toEqual([
      0,
      expect.stringContaining('Destroy complete! Resources: 10 destroyed.'),
    ]);
    expect([4100, 4101, 4102].filter((id) => vm(id))).toEqual([]);
    expect(fx.sim.cluster.access.roles.has('TofuOperator') || fx.sim.cluster.access.users.has('tofu-op@pve')).toBe(
      false,
    );
    expect(fx.sim.cluster.acl.filter((e) => e.roleid === 'TofuOperator')).toEqual([]);

    // No method it called was one the simulator lacks, and no task but the blank VM's shutdown warned.
    const requests = fx.sim.requests.slice(firstRequest);
    expect(requests.filter((r) => r.status === 501).map((r) => `${r.method} ${r.path}`)).toEqual([]);
    const paths = new Set(requests.map((r) => `${r.method} ${r.path.replace(/\/\d{3,}(\/|$)/, '/{vmid}$1')}`));
    for (const read of [
      'GET /nodes',
      'GET /nodes/pve1/status',
      'GET /nodes/pve1/storage',
      'GET /access/users',
      'GET /access/roles',
      'GET /access/groups',
      'GET /pools',
      'GET /cluster/resources',
      'GET /nodes/pve1/query-url-metadata',
    ])
      expect([read, paths.has(read)]).toEqual([read, true]);
    const warned = fx.sim.cluster.tasks.history
      .filter((t) => t.exitstatus !== 'OK')
      .map((t) => `${t.type} ${t.id} ${t.exitstatus}`);
    expect(warned).toEqual(['qmshutdown 4102 WARNINGS: 1']);
  });
});
