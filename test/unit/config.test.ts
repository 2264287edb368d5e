import { migrationSettings } from '../../src/config/migration-settings';
import { provisioningSettings } from '../../src/config/provisioning-settings';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, loadScopedConfig, parseConfig } from '../../src/config';
import { problemsOf } from '../helpers/config-problems';
import { MIGRATION_BASE } from '../helpers/migration-config';

describe('config', () => {
  it('gives working defaults with nothing configured', () => {
    const config = parseConfig({}, {});
    expect(config.temporal).toMatchObject({ address: '127.0.0.1:7233', namespace: 'default', tls: { enabled: false } });
    expect(config.worker.taskQueue).toBe('ferry');
    expect(Object.keys(config.worker.taskQueues).sort()).toEqual([
      'convert',
      'coordination',
      'import',
      'main',
      'sdn',
      'vmotion',
    ]);
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
        {
          proxmox: { host: 'https://pve/', user: 'nouser', tokenId: 'x' },
          worker: { taskQueues: { bogus: {} } },
          extra: 1,
        },
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
      "proxmox.tokenSecret: missing (token auth needs it): set PROXMOX_TOKEN_SECRET in the worker's environment",
    ]);
    expect(problemsOf(() => parseConfig({ proxmox: { host: 'pve', user: 'root@pam', auth: 'ticket' } }, {}))).toEqual([
      "proxmox.password: missing (ticket auth needs it): set PROXMOX_PASSWORD in the worker's environment",
    ]);
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
    const base = MIGRATION_BASE;
    const config = parseConfig({ migration: base }, {});
    expect(config.migration).toMatchObject({
      network: { zone: 'ferry', bridge: 'vmbr0', vnetPrefix: 'v', overrides: [] },
      nicModel: 'virtio',
      cutover: { mode: 'import', forcePowerOff: false },
    });
    expect(config.limits).toEqual({ vmotion: 2, importPerStorage: 2, sdn: 1, vmStart: 4, convert: 2 });
    expect(parseConfig({ migration: { ...base, cutover: { mode: 'live-import' } } }, {}).migration!.cutover.mode).toBe(
      'live-import',
    );
    // verify-guest and the guest agent: on by default, every key validated with a message that says what is wanted.
    expect(config.migration).toMatchObject({
      cutover: { guestAgent: true },
      verify: {
        enabled: true,
        agentTimeout: '5m',
        probeTimeout: '2m',
        pollInterval: '5s',
        probes: [],
        onFailure: 'decide',
        expect: {},
      },
    });
    const verify = {
      probes: [{ tcp: 22 }],
      onFailure: 'rollback',
      expect: { 'mig-app01': '198.51.100.21' },
      agentTimeout: '90s',
      skip: ['appliance-*'],
    };
    const settings = migrationSettings(
      parseConfig({ migration: { ...base, verify } }, {}).migration!,
      config.limits,
      'vc',
    );
    expect(settings.verify).toEqual({
      enabled: true,
      agentTimeoutMs: 90_000,
      networkTimeoutMs: 60_000,
      probeTimeoutMs: 120_000,
      pollIntervalMs: 5_000,
      probes: [{ tcp: 22 }],
      onFailure: 'rollback',
      expect: { 'mig-app01': '198.51.100.21' },
      skip: ['appliance-*'],
    });
    expect(
      problemsOf(() =>
        parseConfig(
          {
            migration: {
              ...base,
              verify: {
                probes: [{ tcp: 0 }, { udp: 53 }],
                onFailure: 'ignore',
                expect: { a: 'not-an-ip' },
                agentTimeout: 'soon',
              },
            },
          },
          {},
        ),
      ),
    ).toEqual([
      expect.stringMatching(/^migration\.verify\.agentTimeout \(ferry\.yaml\): .*a duration such as/),
      expect.stringMatching(/^migration\.verify\.probes\.0\.tcp \(ferry\.yaml\): a TCP port 1–65535/),
      'migration.verify.probes.1.tcp: required: set it in ferry.yaml',
      'migration.verify.probes.1 (ferry.yaml): unknown key(s) "udp"',
      expect.stringMatching(
        /^migration\.verify\.onFailure \(ferry\.yaml\): 'decide' \(wait for a person\) or 'rollback'/,
      ),
      expect.stringMatching(/^migration\.verify\.expect\.a \(ferry\.yaml\): an IPv4 or IPv6 address/),
    ]);
    // The old mode cannot work on real PVE: the config says why and what to use instead.
    expect(
      problemsOf(() => parseConfig({ migration: { ...base, cutover: { mode: 'attach-then-move' } } }, {})),
    ).toEqual([
      expect.stringMatching(
        /^migration\.cutover\.mode \(ferry\.yaml\): 'attach-then-move' is no longer supported: Proxmox VE cannot move a disk attached by absolute path.*use 'overlay'/,
      ),
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
    const scoped = parseConfig(
      { vsphere: { host: 'vc', user: 'ferry', discovery: { datacenter: 'DC0', folders: ['apps'], pageSize: 50 } } },
      env,
    );
    expect(scoped.vsphere!.discovery).toEqual({ datacenter: 'DC0', folders: ['apps'], clusters: [], pageSize: 50 });
    const problems = problemsOf(() =>
      parseConfig(
        { vsphere: { host: 'vc', user: 'ferry', discovery: { clusters: ['Prod'], pageSize: 0 } } },
        env,
        'site.yaml',
      ),
    );
    expect(problems).toEqual(
      expect.arrayContaining([expect.stringMatching(/^vsphere\.discovery\.pageSize \(site\.yaml\): /)]),
    );
    const unscoped = problemsOf(() =>
      parseConfig({ vsphere: { host: 'vc', user: 'ferry', discovery: { clusters: ['Prod'] } } }, env, 'site.yaml'),
    );
    expect(unscoped).toEqual([
      expect.stringMatching(
        /^vsphere\.discovery \(site\.yaml\): folders and clusters relative to a datacenter need it: .*inventory paths \(\/DC0\/vm\/apps\)/,
      ),
    ]);
    // Inventory paths name their datacenter.
    const paths = { folders: ['/DC0/vm/apps'], clusters: ['/DC0/host/Prod'] };
    expect(
      parseConfig({ vsphere: { host: 'vc', user: 'ferry', discovery: paths } }, env, 'site.yaml').vsphere!.discovery,
    ).toMatchObject(paths);
  });
});

describe('config: missing values', () => {
  it('names the variable of a missing secret, not the file', () => {
    expect(problemsOf(() => parseConfig({ vsphere: { host: 'vc', user: 'ferry' } }, {}, 'site.yaml'))).toEqual([
      "vsphere.password: missing: set VMWARE_PASSWORD in the worker's environment",
    ]);
    expect(problemsOf(() => parseConfig({ dns: { server: 'ns1', tsigKeyName: 'k' } }, {}))).toEqual([
      "dns.tsigSecret: missing: set FERRY_DNS_TSIG_SECRET in the worker's environment",
    ]);
  });

  it('says when a section exists only because a variable created it', () => {
    expect(problemsOf(() => parseConfig({}, { VMWARE_PASSWORD: 'pw' }, 'site.yaml'))).toEqual([
      'vsphere.host: required: set it in site.yaml or VMWARE_HOST; the vsphere section exists only because VMWARE_PASSWORD is set',
      'vsphere.user: required: set it in site.yaml or VMWARE_USER; the vsphere section exists only because VMWARE_PASSWORD is set',
    ]);
  });
});

describe('config: scope', () => {
  const example = path.join(__dirname, '..', '..', 'ferry.example.yaml');
  const writeTemp = (document: unknown) => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'ferry-scope-')), 'ferry.yaml');
    writeFileSync(file, JSON.stringify(document));
    return file;
  };

  it('lets a command check only the sections it uses, keeping the names workflow ids need', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ferry-scope-'));
    const file = path.join(dir, 'ferry.yaml');
    writeFileSync(
      file,
      'netbox:\n  url: https://netbox.example.com\n  name: nb1\nvsphere:\n  host: vc\n  user: ferry\n',
    );
    const client = loadScopedConfig(file, {}, { sections: [] });
    expect(client.names).toEqual({ netbox: 'nb1' });
    expect(loadScopedConfig(file, { NETBOX_TOKEN: 't', VMWARE_PASSWORD: 'pw' }).names).toEqual({ netbox: 'nb1' });
    expect(client.config.netbox).toBeUndefined();
    expect(client.config.worker.taskQueue).toBe('ferry');
    expect(loadScopedConfig(file, { VMWARE_PASSWORD: 'pw' }, { sections: ['vsphere'] }).config.vsphere?.host).toBe(
      'vc',
    );
    expect(problemsOf(() => loadConfig(file, {}, { sections: ['vsphere'] }))).toEqual([
      "vsphere.password: missing: set VMWARE_PASSWORD in the worker's environment",
    ]);
  });

  it('needs no worker secret for a client command on the example config, and every one for the worker', () => {
    expect(() => loadConfig(example, {}, { sections: [] })).not.toThrow();
    const problems = problemsOf(() => loadConfig(example, {}));
    for (const env of ['PROXMOX_TOKEN_SECRET', 'VMWARE_PASSWORD', 'NETBOX_TOKEN', 'FERRY_DNS_TSIG_SECRET']) {
      expect(problems).toContainEqual(expect.stringContaining(`set ${env} in the worker's environment`));
    }
  });

  it('refuses a secret written in the file in every scope, even a section the command does not read', () => {
    const document = { proxmox: { host: 'pve1', user: 'f@pve', tokenId: 'f@pve!t', tokenSecret: 'x' } };
    const refusal =
      "proxmox.tokenSecret (ferry.yaml): secrets are not read from files; set PROXMOX_TOKEN_SECRET in the worker's environment";
    expect(problemsOf(() => parseConfig(document, {}, 'ferry.yaml', { sections: [] }))).toEqual([refusal]);
    expect(problemsOf(() => parseConfig(document, {}, 'ferry.yaml', { sections: ['vsphere'] }))).toEqual([refusal]);
  });

  it('says where the Temporal address came from', () => {
    const from = (document: unknown, env: Record<string, string>) =>
      loadScopedConfig(undefined, { ...env, FERRY_CONFIG: writeTemp(document) }).defaults.temporalAddressFrom;
    expect(from({}, {})).toEqual({ kind: 'default' });
    expect(from({ temporal: { address: 't:7233' } }, {})).toEqual({
      kind: 'file',
      file: expect.stringMatching(/\.yaml$/),
    });
    expect(from({ temporal: { address: 't:7233' } }, { TEMPORAL_ADDRESS: 'u:7233' })).toEqual({ kind: 'environment' });
  });

  it('still checks the names and the always-used sections', () => {
    expect(
      problemsOf(() => parseConfig({ netbox: { url: 'https://nb', name: 'bad name' } }, { NETBOX_TOKEN: 't' })),
    ).toEqual(['netbox.name (ferry.yaml): letters, digits, dot, dash, underscore']);
    expect(
      problemsOf(() =>
        parseConfig({ netbox: { name: 'bad name' }, worker: { taskQueue: '' } }, {}, 'ferry.yaml', { sections: [] }),
      ),
    ).toEqual([
      'netbox.name (ferry.yaml): letters, digits, dot, dash, underscore',
      expect.stringMatching(/^worker\.taskQueue \(ferry\.yaml\): /),
    ]);
  });
});

describe('config: endpoint URLs', () => {
  const token = { NETBOX_TOKEN: 'x' };
  it('refuses credentials in the NetBox URL', () => {
    expect(problemsOf(() => parseConfig({ netbox: { url: 'https://ferry:pw@netbox.example.com' } }, token))).toEqual([
      'netbox.url (ferry.yaml): no credentials in the URL: the token comes from NETBOX_TOKEN',
    ]);
  });

  it('refuses credentials or a scheme in the Temporal address', () => {
    for (const address of ['ferry:pw@temporal:7233', 'https://temporal:7233']) {
      expect(problemsOf(() => parseConfig({}, { TEMPORAL_ADDRESS: address }))).toEqual([
        'temporal.address (environment TEMPORAL_ADDRESS): host:port, without scheme or credentials (TEMPORAL_API_KEY or mTLS authenticate)',
      ]);
    }
  });

  it('refuses plain http to another host unless explicitly allowed', () => {
    expect(problemsOf(() => parseConfig({ netbox: { url: 'http://netbox.example.com' } }, token))).toEqual([
      expect.stringMatching(/^netbox\.url \(ferry\.yaml\): http:\/\/ would send the NetBox token unencrypted/),
    ]);
    expect(
      parseConfig({ netbox: { url: 'http://netbox.example.com', allowInsecureHttp: true } }, token).netbox?.url,
    ).toBe('http://netbox.example.com');
    expect(parseConfig({ netbox: { url: 'http://127.0.0.1:8000' } }, token).netbox?.url).toBe('http://127.0.0.1:8000');
    expect(parseConfig({ netbox: { url: 'http://[::1]:8000' } }, token).netbox?.url).toBe('http://[::1]:8000');
  });
});

describe('config: provisioning', () => {
  it('takes a provisioning section without a node: VMs whose record names none are then placed', () => {
    const config = parseConfig({ provisioning: { approvers: ['alice'], approvals: 'unsigned' } }, {});
    expect(config.provisioning).not.toHaveProperty('node');
    expect(config.provisioning?.storage).toBe('local-lvm');
  });

  it('fills the defaults around a node and the approvers', () => {
    const config = parseConfig({ provisioning: { node: 'pve1', approvers: ['alice'], approvals: 'unsigned' } }, {});
    expect(config.provisioning).toEqual({
      node: 'pve1',
      storage: 'local-lvm',
      network: 'vmbr0',
      vmidRange: { min: 10_000, max: 99_999 },
      ostype: 'l26',
      nicModel: 'virtio',
      tags: ['ferry'],
      extras: { rng0: 'source=/dev/urandom' },
      secureBoot: true,
      start: false,
      maxConcurrent: 10,
      approvers: ['alice'],
      approvals: 'unsigned',
      heartbeatTimeout: '1m',
      retry: { initialInterval: '1s', maximumInterval: '30s' },
      pollInterval: '2s',
      guestNetworkTimeout: '1m',
      teardown: {
        approvalFor: ['active'],
        netbox: 'delete',
        shutdownTimeout: '2m',
        knownHosts: true,
        cleanupAttempts: 5,
      },
    });
    expect(parseConfig({}, {}).provisioning).toBeUndefined();
  });

  it('gives verify-guest the network deadline it names (guestNetworkTimeout; a minute by default)', () => {
    const settings = (provisioning: Record<string, unknown>) =>
      provisioningSettings(
        parseConfig(
          { provisioning: { node: 'pve1', approvers: ['alice'], approvals: 'unsigned', ...provisioning } },
          {},
        ),
        { netbox: false, dns: false },
      );
    expect(settings({}).guestNetworkTimeoutMs).toBe(60_000);
    expect(settings({ guestNetworkTimeout: '30s' }).guestNetworkTimeoutMs).toBe(30_000);
    expect(
      problemsOf(() =>
        parseConfig(
          { provisioning: { node: 'pve1', approvers: ['alice'], approvals: 'unsigned', guestNetworkTimeout: 'soon' } },
          {},
        ),
      ),
    ).toEqual([expect.stringContaining('provisioning.guestNetworkTimeout')]);
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
      'provisioning.storage (ferry.yaml): a Proxmox storage id',
      'provisioning.prefix (ferry.yaml): an IPv4 prefix such as 192.0.2.0/24',
      'provisioning.vmidRange (ferry.yaml): min must not be above max',
      expect.stringMatching(/^provisioning\.extras \(ferry\.yaml\): only these options: rng0, serial0/),
      'provisioning.acl (ferry.yaml): name at least one user or group',
      'provisioning.teardown.netbox (ferry.yaml): Invalid option: expected one of "delete"|"decommissioning"|"offline"',
      // In the same pass as the type errors: the rule across keys no longer waits for them to be fixed.
      'provisioning.approvers (ferry.yaml): teardown.approvalFor (active) needs approvers (or set teardown.approvalFor: [])',
    ]);
    expect(problemsOf(() => parseConfig({ provisioning: { node: 'pve1' } }, {}))).toEqual([
      'provisioning.approvers (ferry.yaml): teardown.approvalFor (active) needs approvers (or set teardown.approvalFor: [])',
    ]);
  });
});

describe('config: approvers and signed approvals', () => {
  const alice = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINndqdzIWWJn77slxeVkrhwCk2dBPloq495NCPHJ+jyx alice@example.com';
  const raw = 'xj5JpL3w8Nmwmo5FH8L7Sgm4WYfl5CD9ofRXMHgEGk8=';
  const migration = (extra: Record<string, unknown>) => ({
    vmidBase: 20000,
    node: 'pve1',
    targetStorage: 'local-lvm',
    migrationDatastore: 'nfs',
    datastores: [{ datastore: 'nfs', storage: 'nfs', path: '/mnt/pve/nfs' }],
    ...extra,
  });

  it('signs by default: each approver has an ed25519 key (an OpenSSH line or raw), and the run carries them', () => {
    const config = parseConfig(
      {
        migration: migration({
          approvers: [
            { name: 'alice', key: alice },
            { name: 'bob', key: raw },
            { name: 'alice', key: raw },
          ],
        }),
      },
      {},
    );
    expect(config.migration!.approvals).toBe('signed');
    const settings = migrationSettings(config.migration!, config.limits, 'vc1');
    expect(settings.approvers).toEqual(['alice', 'bob']);
    expect(settings.approvals).toEqual({
      mode: 'signed',
      keys: [
        { name: 'alice', key: alice },
        { name: 'bob', key: raw },
        { name: 'alice', key: raw },
      ],
    });
  });

  it('takes plain names only under approvals: unsigned, and says so', () => {
    expect(
      problemsOf(() => parseConfig({ migration: migration({ approvers: ['alice', { name: 'bob', key: raw }] }) }, {})),
    ).toEqual([
      'migration.approvers.0 (ferry.yaml): alice has no key: migration.approvals is signed (the default), so each approver is { name, key } with an ed25519 public key; or set migration.approvals: unsigned',
    ]);
    const unsigned = parseConfig(
      { migration: migration({ approvers: ['alice', { name: 'bob', key: raw }], approvals: 'unsigned' }) },
      {},
    );
    expect(migrationSettings(unsigned.migration!, unsigned.limits, 'vc1').approvals).toEqual({
      mode: 'unsigned',
      keys: [{ name: 'bob', key: raw }],
    });
    expect(problemsOf(() => parseConfig({ provisioning: { node: 'pve1', approvers: ['carol'] } }, {}))).toEqual([
      expect.stringMatching(
        /^provisioning\.approvers\.0 \(ferry\.yaml\): carol has no key: provisioning\.approvals is signed/,
      ),
    ]);
  });

  it('refuses a key that is not ed25519, and a mode it does not know', () => {
    const problems = problemsOf(() =>
      parseConfig(
        {
          migration: migration({
            approvals: 'trusted',
            approvers: [
              { name: 'alice', key: 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ alice' },
              { name: 'bob', key: 'not a key' },
            ],
          }),
        },
        {},
      ),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^migration\.approvals /),
        expect.stringMatching(/^migration\.approvers\.0\.key .*ssh-rsa keys are not supported/),
        expect.stringMatching(
          /^migration\.approvers\.1\.key .*expected "ssh-ed25519 AAAA…" or a raw ed25519 public key/,
        ),
      ]),
    );
  });
});
