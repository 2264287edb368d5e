import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig, parseConfig } from '../../src/config';

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('config', () => {
  it('gives working defaults with nothing configured', () => {
    const config = parseConfig({}, {});
    expect(config.temporal).toMatchObject({ address: '127.0.0.1:7233', namespace: 'default', tls: { enabled: false } });
    expect(config.worker.taskQueue).toBe('ferry');
    expect(Object.keys(config.worker.taskQueues).sort()).toEqual(['import', 'main', 'sdn', 'vmotion']);
    expect(config.worker.taskQueues.sdn).toEqual({ maxConcurrentActivities: 1 });
    expect(config.proxmox).toBeUndefined();
  });

  it('takes endpoints and secrets from the Ansible-style environment variables', () => {
    const config = parseConfig(
      { proxmox: { host: 'pve1.example.com' } },
      {
        PROXMOX_USER: 'ferry@pve',
        PROXMOX_TOKEN_ID: 'ferry',
        PROXMOX_TOKEN_SECRET: 's3cret',
        PROXMOX_VALIDATE_CERTS: 'false',
        TEMPORAL_ADDRESS: 'temporal.example.com:7233',
        TEMPORAL_NAMESPACE: 'infra',
      },
    );
    expect(config.proxmox).toMatchObject({
      host: 'pve1.example.com',
      port: 8006,
      user: 'ferry@pve',
      tokenId: 'ferry',
      tokenSecret: 's3cret',
      validateCerts: false,
      auth: 'token',
    });
    expect(config.temporal).toMatchObject({ address: 'temporal.example.com:7233', namespace: 'infra' });
  });

  it('verifies TLS unless an endpoint says otherwise', () => {
    const config = parseConfig(
      { netbox: { url: 'https://netbox.example.com' }, vsphere: { host: 'vc.example.com', user: 'ferry' } },
      { NETBOX_TOKEN: 'abc', VMWARE_PASSWORD: 'pw' },
    );
    expect(config.netbox!.validateCerts).toBe(true);
    expect(config.vsphere!.validateCerts).toBe(true);
  });

  it('refuses secrets written in the file, naming the variable to use instead', () => {
    const problems = problemsOf(() =>
      parseConfig({ proxmox: { host: 'pve', user: 'a@pve', tokenId: 't', tokenSecret: 'oops' } }, {}, 'ferry.yaml'),
    );
    expect(problems).toContain(
      "proxmox.tokenSecret (ferry.yaml): secrets are not read from files; set PROXMOX_TOKEN_SECRET in the worker's environment",
    );
  });

  it('lists every problem with its key and its source', () => {
    const problems = problemsOf(() =>
      parseConfig(
        { proxmox: { host: 'https://pve/', user: 'nouser', tokenId: 'x' }, worker: { taskQueues: { bogus: {} } }, extra: 1 },
        { PROXMOX_PORT: 'eighty', PROXMOX_TOKEN_SECRET: 's' },
        'site.yaml',
      ),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        'proxmox.port (environment PROXMOX_PORT): expected a whole number, got "eighty"',
        expect.stringMatching(/^proxmox\.host \(site\.yaml\): a host name or IP address/),
        expect.stringMatching(/^proxmox\.user \(site\.yaml\): user@realm/),
        'worker.taskQueues (site.yaml): unknown key(s) "bogus"',
        '(top level) (site.yaml): unknown key(s) "extra"',
      ]),
    );
  });

  it('requires the secret that the chosen auth method needs', () => {
    expect(problemsOf(() => parseConfig({ proxmox: { host: 'pve', user: 'a@pve', tokenId: 't' } }, {}))).toEqual([
      'proxmox.tokenSecret (ferry.yaml): token auth needs the secret in PROXMOX_TOKEN_SECRET',
    ]);
    expect(
      problemsOf(() => parseConfig({ proxmox: { host: 'pve', user: 'root@pam', auth: 'ticket' } }, {})),
    ).toEqual(['proxmox.password (ferry.yaml): ticket auth needs the password in PROXMOX_PASSWORD']);
  });

  it('loads ferry.yaml from a file and reports YAML syntax errors with the file name', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ferry-config-'));
    const good = path.join(dir, 'good.yaml');
    writeFileSync(good, 'temporal:\n  namespace: ops\nworker:\n  shutdownGraceTime: 2m\n');
    expect(loadConfig(good, {}).temporal.namespace).toBe('ops');
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(bad, 'temporal: [unclosed\n');
    expect(problemsOf(() => loadConfig(bad, {}))[0]).toMatch(/bad\.yaml: not valid YAML/);
    expect(problemsOf(() => loadConfig(path.join(dir, 'missing.yaml'), {}))).toEqual([
      `${path.join(dir, 'missing.yaml')}: no such file`,
    ]);
  });

  it('rejects malformed durations and mTLS with half a key pair', () => {
    const problems = problemsOf(() =>
      parseConfig({ worker: { shutdownGraceTime: 'soon' }, temporal: { tls: { clientCertFile: '/c.pem' } } }, {}),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^worker\.shutdownGraceTime .*a duration such as/),
        'temporal.tls (ferry.yaml): mTLS needs both clientCertFile and clientKeyFile',
      ]),
    );
  });

  it('validates the migration rules and fills their defaults', () => {
    const base = {
      vmidBase: 20000,
      node: 'pve1',
      targetStorage: 'local-lvm',
      migrationDatastore: 'nfs-migration',
      datastores: [{ datastore: 'nfs-migration', storage: 'nfs-migration', path: '/mnt/pve/nfs-migration' }],
      approvers: ['alice'],
    };
    const config = parseConfig({ migration: base }, {});
    expect(config.migration).toMatchObject({
      network: { zone: 'ferry', bridge: 'vmbr0', vnetPrefix: 'v', overrides: [] },
      nicModel: 'virtio',
      cutover: { mode: 'import', forcePowerOff: false },
    });
    expect(config.limits).toEqual({ vmotion: 2, importPerStorage: 2, sdn: 1, vmStart: 4 });
    expect(parseConfig({ migration: { ...base, cutover: { mode: 'live-import' } } }, {}).migration!.cutover.mode).toBe('live-import');
    // The old mode cannot work on real PVE: the config says why and what to use instead.
    expect(problemsOf(() => parseConfig({ migration: { ...base, cutover: { mode: 'attach-then-move' } } }, {}))).toEqual([
      expect.stringMatching(/^migration\.cutover\.mode \(ferry\.yaml\): 'attach-then-move' is no longer supported: Proxmox VE cannot move a disk attached by absolute path.*use 'live-import'/),
    ]);

    const problems = problemsOf(() =>
      parseConfig(
        {
          migration: {
            ...base,
            approvers: [],
            datastores: [{ datastore: 'x', storage: 'y', path: 'relative' }],
            network: { vnetPrefix: 'vlan1', overrides: [{ network: 'PG', vnet: 'has-dash' }] },
          },
        },
        {},
      ),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^migration\.approvers .*>=1|^migration\.approvers/),
        'migration.datastores.0.path (ferry.yaml): an absolute path on the Proxmox nodes',
        'migration.network.vnetPrefix (ferry.yaml): 1–4 letters and digits, starting with a letter',
        'migration.network.overrides.0.vnet (ferry.yaml): 2–8 letters and digits, starting with a letter',
      ]),
    );
  });

  it('scopes vSphere discovery by datacenter, folders and clusters, with a page size', () => {
    const env = { VMWARE_PASSWORD: 'pw' };
    const config = parseConfig({ vsphere: { host: 'vc', user: 'ferry' } }, env);
    expect(config.vsphere!.discovery).toEqual({ folders: [], clusters: [], pageSize: 500 });
    const scoped = parseConfig({ vsphere: { host: 'vc', user: 'ferry', discovery: { datacenter: 'DC0', folders: ['apps'], pageSize: 50 } } }, env);
    expect(scoped.vsphere!.discovery).toEqual({ datacenter: 'DC0', folders: ['apps'], clusters: [], pageSize: 50 });
    const problems = problemsOf(() =>
      parseConfig({ vsphere: { host: 'vc', user: 'ferry', discovery: { clusters: ['Prod'], pageSize: 0 } } }, env, 'site.yaml'),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^vsphere\.discovery\.pageSize \(site\.yaml\): /),
      ]),
    );
    const unscoped = problemsOf(() => parseConfig({ vsphere: { host: 'vc', user: 'ferry', discovery: { clusters: ['Prod'] } } }, env, 'site.yaml'));
    expect(unscoped).toEqual([expect.stringMatching(/^vsphere\.discovery \(site\.yaml\): folders and clusters are paths inside a datacenter/)]);
  });
});

describe('config: provisioning', () => {
  it('fills the defaults around a node and the approvers', () => {
    const config = parseConfig({ provisioning: { node: 'pve1', approvers: ['alice'] } }, {});
    expect(config.provisioning).toEqual({
      node: 'pve1',
      storage: 'local-lvm',
      network: 'vmbr0',
      vmidRange: { min: 10_000, max: 99_999 },
      ostype: 'l26',
      nicModel: 'virtio',
      tags: ['ferry'],
      extras: { rng0: 'source=/dev/urandom' },
      start: false,
      maxConcurrent: 10,
      approvers: ['alice'],
      heartbeatTimeout: '1m',
      retry: { initialInterval: '1s', maximumInterval: '30s' },
      pollInterval: '2s',
      teardown: { approvalFor: ['active'], netbox: 'delete', shutdownTimeout: '2m', knownHosts: true, cleanupAttempts: 5 },
    });
    expect(parseConfig({}, {}).provisioning).toBeUndefined();
  });

  it('takes every key', () => {
    const config = parseConfig(
      {
        netbox: { url: 'https://netbox.example.com', name: 'nb1' },
        provisioning: {
          node: 'pve2',
          storage: 'ceph',
          efiStorage: 'local-lvm',
          network: 'v100',
          prefix: '192.0.2.0/24',
          dnsZone: 'lab.example.com',
          vmidRange: { min: 5000, max: 5999 },
          acl: { roles: ['PVEVMUser'], groups: ['ops'] },
          teardown: { approvalFor: [], netbox: 'offline', approvalDeadline: '3d', cleanupAttempts: 3 },
        },
      },
      { NETBOX_TOKEN: 'x' },
    );
    expect(config.netbox?.name).toBe('nb1');
    expect(config.provisioning).toMatchObject({
      acl: { roles: ['PVEVMUser'], users: [], groups: ['ops'] },
      teardown: { approvalFor: [], netbox: 'offline', approvalDeadline: '3d', cleanupAttempts: 3, knownHosts: true },
    });
  });

  it('lists every problem with its key', () => {
    expect(
      problemsOf(() =>
        parseConfig(
          {
            provisioning: {
              storage: '9bad',
              prefix: '192.0.2.0',
              vmidRange: { min: 2000, max: 1000 },
              extras: { args: '-cpu host' },
              acl: { roles: ['PVEVMUser'] },
              teardown: { netbox: 'archive' },
            },
          },
          {},
        ),
      ),
    ).toEqual([
      'provisioning.node (ferry.yaml): Invalid input: expected string, received undefined',
      'provisioning.storage (ferry.yaml): a Proxmox storage id',
      'provisioning.prefix (ferry.yaml): an IPv4 prefix such as 192.0.2.0/24',
      'provisioning.vmidRange (ferry.yaml): min must not be above max',
      expect.stringMatching(/^provisioning\.extras \(ferry\.yaml\): only these options: rng0, serial0/),
      'provisioning.acl (ferry.yaml): name at least one user or group',
      'provisioning.teardown.netbox (ferry.yaml): Invalid option: expected one of "delete"|"decommissioning"|"offline"',
    ]);
    expect(problemsOf(() => parseConfig({ provisioning: { node: 'pve1' } }, {}))).toEqual([
      'provisioning.approvers (ferry.yaml): teardown.approvalFor (active) needs approvers (or set teardown.approvalFor: [])',
    ]);
  });
});
