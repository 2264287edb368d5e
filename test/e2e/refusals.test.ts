import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { ConfigError, parseConfig } from '../../src/config';
import { readSpecFile } from '../../cli/spec-file';
import { readWaveFile } from '../../cli/wave-file';
import { UsageError } from '../../cli/errors';
import { startNotTemporal, type NotTemporal } from '../helpers/not-temporal';
import { ROOT, spawnFerry } from '../helpers/processes';
import { ferryOnTerminal } from '../helpers/terminal';

/**
 * A corpus of bad inputs, each refused with its exit code and a message that names the key or flag:
 * configuration documents, wave files and VM specs through their parsers, the command line and
 * configuration files through the real `ferry` binary (and the worker). Never a stack trace; every
 * problem of one input in one pass.
 */
jest.setTimeout(180_000);

const dir = mkdtempSync(path.join(tmpdir(), 'ferry-refusals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
function file(content: string, ext = 'yaml'): string {
  const name = path.join(dir, `input-${++files}.${ext}`);
  writeFileSync(name, content);
  return name;
}

const STACK = /\n\s+at .+:\d+:\d+\)?/;
const SECRETS = {
  PROXMOX_TOKEN_SECRET: 'tok',
  VMWARE_PASSWORD: 'pw',
  NETBOX_TOKEN: 'nbt_a.b',
  FERRY_DNS_TSIG_SECRET: 'c2VjcmV0',
};
const PVE = { host: 'pve1', user: 'ferry@pve', tokenId: 'ferry@pve!ferry' };

/** [what, document, environment, every substring the one message must hold]. */
type ConfigCase = [string, unknown, Record<string, string>, string[]];
const CONFIG_CASES: ConfigCase[] = [
  ['unknown top-level key', { temporl: {} }, {}, ['unknown key(s) "temporl"']],
  ['top level not a mapping', ['a'], {}, ['top level must be a mapping']],
  [
    'a secret in the file',
    { proxmox: { ...PVE, tokenSecret: 'x' } },
    SECRETS,
    ['proxmox.tokenSecret', 'PROXMOX_TOKEN_SECRET'],
  ],
  ['temporal.address with a scheme', { temporal: { address: 'http://t:7233' } }, {}, ['temporal.address', 'host:port']],
  ['temporal.namespace empty', { temporal: { namespace: '' } }, {}, ['temporal.namespace']],
  ['mTLS cert without key', { temporal: { tls: { clientCertFile: '/x.pem' } } }, {}, ['temporal.tls', 'clientKeyFile']],
  ['worker.taskQueue with a space', { worker: { taskQueue: 'a b' } }, {}, ['worker.taskQueue']],
  [
    'worker.shutdownGraceTime not a duration',
    { worker: { shutdownGraceTime: 'soon' } },
    {},
    ['worker.shutdownGraceTime', 'duration'],
  ],
  [
    'unknown queue role',
    { worker: { taskQueues: { turbo: { maxConcurrentActivities: 1 } } } },
    {},
    ['worker.taskQueues'],
  ],
  ['proxmox.port out of range', { proxmox: { ...PVE, port: 70000 } }, SECRETS, ['proxmox.port']],
  ['proxmox.user without realm', { proxmox: { ...PVE, user: 'ferry' } }, SECRETS, ['proxmox.user', 'user@realm']],
  [
    'proxmox.caFile missing (B5)',
    { proxmox: { ...PVE, caFile: '/nonexistent/pve-ca.pem' } },
    SECRETS,
    ['proxmox.caFile', '/nonexistent/pve-ca.pem', 'no such file'],
  ],
  [
    'vsphere.caFile a folder',
    { vsphere: { host: 'vc', user: 'u', caFile: '/tmp' } },
    SECRETS,
    ['vsphere.caFile', 'folder'],
  ],
  [
    'PROXMOX_CA_FILE missing',
    { proxmox: PVE },
    { ...SECRETS, PROXMOX_CA_FILE: '/nonexistent/ca.pem' },
    ['proxmox.caFile (environment PROXMOX_CA_FILE)'],
  ],
  [
    'proxmox token auth without tokenId',
    { proxmox: { host: 'pve1', user: 'ferry@pve' } },
    SECRETS,
    ['proxmox.tokenId'],
  ],
  [
    'vsphere discovery folders without datacenter',
    { vsphere: { host: 'vc', user: 'u', discovery: { folders: ['apps'] } } },
    SECRETS,
    ['vsphere.discovery', 'datacenter'],
  ],
  ['netbox.url not a URL', { netbox: { url: 'netbox' } }, SECRETS, ['netbox.url']],
  [
    'netbox.url with a token in the query (B5)',
    { netbox: { url: 'https://netbox.example.com/?token=abc' } },
    SECRETS,
    ['netbox.url', 'no query string', 'NETBOX_TOKEN'],
  ],
  [
    'netbox.url with credentials',
    { netbox: { url: 'https://u:p@netbox.example.com' } },
    SECRETS,
    ['netbox.url', 'no credentials'],
  ],
  [
    'netbox.url plain http to another host',
    { netbox: { url: 'http://netbox.example.com' } },
    SECRETS,
    ['netbox.url', 'allowInsecureHttp'],
  ],
  // B4: every problem in one pass.
  [
    'secrets and URL problems together (B4)',
    { netbox: { url: 'http://u:p@netbox.example.com/?t=1' } },
    {},
    ['netbox.token', 'NETBOX_TOKEN', 'no credentials', 'no query string', 'allowInsecureHttp'],
  ],
  [
    'type error, unknown key and missing secret together (B4)',
    { proxmox: { host: 'pve1', user: 5, bogus: 1 } },
    {},
    ['proxmox.user', '"bogus"', 'proxmox.tokenSecret', 'proxmox.tokenId'],
  ],
  [
    'dns.tsigSecret not base64',
    { dns: { server: 'ns1', tsigKeyName: 'k' } },
    { FERRY_DNS_TSIG_SECRET: 'not base64!' },
    ['dns.tsigSecret', 'base64'],
  ],
  ['dns.ttl negative', { dns: { server: 'ns1', tsigKeyName: 'k', ttl: -1 } }, SECRETS, ['dns.ttl']],
  [
    'PROXMOX_PORT not a number',
    { proxmox: PVE },
    { ...SECRETS, PROXMOX_PORT: 'eighty' },
    ['proxmox.port (environment PROXMOX_PORT)'],
  ],
  [
    'provisioning vmidRange min above max',
    { provisioning: { vmidRange: { min: 2000, max: 1000 }, approvers: ['a'] } },
    {},
    ['provisioning.vmidRange', 'min must not be above max'],
  ],
  ['a section that is not a mapping', { proxmox: 'pve1' }, {}, ['proxmox (ferry.yaml)', 'expected object']],
  [
    'a nested section that is null',
    { vsphere: { host: 'vc', user: 'u', discovery: null } },
    SECRETS,
    ['vsphere.discovery'],
  ],
  [
    'vmidRange not a mapping',
    { provisioning: { node: 'pve1', storage: 'local-lvm', vmidRange: 'all', approvers: ['a'] } },
    {},
    ['provisioning.vmidRange'],
  ],
  [
    'provisioning approvals without approvers, and a type error (B4)',
    { provisioning: { maxConcurrent: 'ten' } },
    {},
    ['provisioning.maxConcurrent', 'provisioning.approvers'],
  ],
];

describe('configuration documents', () => {
  it.each(CONFIG_CASES)('%s', (_what, document, env, expected) => {
    let error: unknown;
    try {
      parseConfig(document, env, 'ferry.yaml');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    for (const part of expected) expect(message).toContain(part);
    expect(message).not.toMatch(STACK);
  });
});

type FileCase = [string, string, string[]];
const WAVE_CASES: FileCase[] = [
  ['no selection', 'waveId: w1\n', ['selection']],
  ['empty selection', 'waveId: w1\nselection: {}\n', ['selection', 'select VMs by names, folder, cluster or tag']],
  [
    'folder and names together (B5)',
    'waveId: w1\nselection: {folder: /DC0/vm, names: [a]}\n',
    ['selection.names', 'not together with folder'],
  ],
  [
    'names and tag together (B5)',
    'waveId: w1\nselection: {tag: ferry/w1, names: [a]}\n',
    ['selection.names', 'not together with tag'],
  ],
  ['tag with two slashes (B5)', 'waveId: w1\nselection: {tag: a/b/c}\n', ['selection.tag', 'category/name']],
  ['tag with an empty category', 'waveId: w1\nselection: {tag: /wave1}\n', ['selection.tag']],
  ['folder not a path', 'waveId: w1\nselection: {folder: apps}\n', ['selection.folder', '/DC0/vm/apps']],
  ['names empty', 'waveId: w1\nselection: {names: []}\n', ['selection.names']],
  ['waveId with a slash', 'waveId: a/b\nselection: {folder: /DC0/vm}\n', ['waveId']],
  ['maxConcurrent zero', 'waveId: w1\nselection: {folder: /DC0/vm}\nmaxConcurrent: 0\n', ['maxConcurrent']],
  ['unknown key', 'waveId: w1\nselection: {folder: /DC0/vm}\nparallel: 3\n', ['unknown key(s) "parallel"']],
  ['not YAML', 'waveId: [w1\n', ['input-']],
  [
    'every problem in one pass (B4)',
    'waveId: 5\nselection: {names: x, tag: a/b/c, extra: 1}\nmaxConcurrent: -1\n',
    ['waveId', 'selection.names', 'selection.tag', '"extra"', 'maxConcurrent'],
  ],
];

describe('wave files', () => {
  it.each(WAVE_CASES)('%s', (_what, content, expected) => {
    const name = file(content);
    let error: unknown;
    try {
      readWaveFile(name);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(UsageError);
    for (const part of expected) expect((error as Error).message).toContain(part);
  });
});

const SPEC = {
  name: 'web1',
  node: 'pve1',
  cores: 2,
  memoryMiB: 2048,
  disks: [{ slot: 'scsi0', storage: 'local-lvm', sizeGiB: 10 }],
  nics: [{ slot: 'net0', network: 'vmbr0' }],
};
const spec = (changes: Record<string, unknown>) => stringify({ ...SPEC, ...changes });
const SPEC_CASES: FileCase[] = [
  ['name not a DNS label', spec({ name: 'web_1' }), ['name']],
  ['cores zero', spec({ cores: 0 }), ['cores', 'at least 1']],
  ['memory a string', spec({ memoryMiB: 'lots' }), ['memoryMiB']],
  ['vmid below 100', spec({ vmid: 5 }), ['vmid']],
  [
    'VLAN out of range',
    spec({ nics: [{ slot: 'net0', network: 'vmbr0', vlan: 5000 }] }),
    ['nics.0.vlan', 'VLAN 1–4094'],
  ],
  ['disk slot unknown', spec({ disks: [{ slot: 'ide0', storage: 'local-lvm', sizeGiB: 1 }] }), ['disks.0.slot']],
  [
    'disk slot twice',
    spec({
      disks: [
        { slot: 'scsi0', storage: 'local-lvm', sizeGiB: 1 },
        { slot: 'scsi0', storage: 'local-lvm', sizeGiB: 1 },
      ],
    }),
    ['disks', 'scsi0 is used twice'],
  ],
  ['extras option not allowed', spec({ extras: { args: '-x' } }), ['extras']],
  ['prefix without netboxId', spec({ prefix: '192.0.2.0/24' }), ['prefix', 'netboxId']],
  ['unknown key', spec({ colour: 'blue' }), ['unknown key(s) "colour"']],
  ['missing name', stringify({ ...SPEC, name: undefined }), ['name: missing']],
  [
    'every problem in one pass (B4)',
    spec({
      cores: 'two',
      colour: 'blue',
      nics: [{ slot: 'net0', network: 'vmbr0', vlan: 5000 }],
      prefix: '192.0.2.0/24',
    }),
    ['cores', '"colour"', 'nics.0.vlan', 'prefix: addresses are allocated in NetBox'],
  ],
  ['JSON with a type error', JSON.stringify({ ...SPEC, start: 'yes' }), ['start']],
];

describe('VM spec files', () => {
  it.each(SPEC_CASES)('%s', (_what, content, expected) => {
    const name = file(content);
    let error: unknown;
    try {
      readSpecFile(name);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(UsageError);
    for (const part of expected) expect((error as Error).message).toContain(part);
  });
});

/** [what, argv, exit code, every substring the output must hold]; run as a user would, with no Temporal needed. */
type CliCase = [string, () => string[], number, string[], Record<string, string>?];
const NO_TEMPORAL = { TEMPORAL_ADDRESS: '127.0.0.1:1' };
const CLI_CASES: CliCase[] = [
  ['unknown command', () => ['migrat'], 2, ['unknown command']],
  ['unknown flag', () => ['list', '--knd', 'wave'], 2, ["unknown option '--knd'"]],
  ['list --kind bogus (B5)', () => ['list', '--kind', 'bogus'], 2, ['--kind', 'unknown kind "bogus"', 'wave']],
  ['list --limit 0', () => ['list', '--limit', '0'], 2, ['--limit']],
  ['migrate --vm with --names (B5)', () => ['migrate', '--vm', 'x', '--names', 'a,b'], 2, ['--vm and --names']],
  [
    'migrate --wave with --folder (B5)',
    () => ['migrate', '--wave', 'w.yaml', '--folder', '/DC0/vm'],
    2,
    ['--wave and --folder'],
  ],
  [
    'migrate --names with --folder (B5)',
    () => ['migrate', '--names', 'a', '--folder', '/DC0/vm', '--wave-id', 'w'],
    2,
    ['--names', 'not together with folder'],
  ],
  ['migrate --tag a/b/c', () => ['migrate', '--tag', 'a/b/c', '--wave-id', 'w'], 2, ['--tag', 'category/name']],
  ['migrate --folder not a path', () => ['migrate', '--folder', 'apps', '--wave-id', 'w'], 2, ['--folder']],
  ['migrate with nothing', () => ['migrate'], 2, ['say what to migrate']],
  ['migrate --names without --wave-id', () => ['migrate', '--names', 'a'], 2, ['--wave-id']],
  [
    'migrate --wave with a bad wave file',
    () => ['migrate', '--wave', file('waveId: w1\nselection: {folder: /DC0/vm, names: [a]}\n')],
    2,
    ['selection.names'],
  ],
  ['migrate --max-concurrent 0', () => ['migrate', '--vm', 'x', '--max-concurrent', '0'], 2, ['--max-concurrent']],
  [
    'plan --names with --cluster',
    () => ['plan', '--names', 'a', '--cluster', 'C'],
    2,
    ['--names', 'not together with cluster'],
  ],
  ['provision with nothing', () => ['provision'], 2, ['--netbox-id', '--spec', '--planned']],
  [
    'provision --netbox-id and --spec',
    () => ['provision', '--netbox-id', '1', '--spec', 'x.yaml'],
    2,
    ['exactly one of'],
  ],
  [
    'provision --cluster without --planned',
    () => ['provision', '--netbox-id', '1', '--cluster', 'c'],
    2,
    ['--cluster', '--planned'],
  ],
  ['provision --netbox-id zero', () => ['provision', '--netbox-id', '0'], 2, ['--netbox-id']],
  [
    'provision --spec with a bad spec (B4)',
    () => [
      'provision',
      '--spec',
      file(spec({ cores: 'two', colour: 'x', nics: [{ slot: 'net0', network: 'vmbr0', vlan: 0 }] })),
    ],
    2,
    ['cores', '"colour"', 'nics.0.vlan'],
  ],
  [
    'provision --spec missing file',
    () => ['provision', '--spec', '/nonexistent/spec.yaml'],
    2,
    ['/nonexistent/spec.yaml'],
  ],
  [
    'teardown --vmid and --netbox-id',
    () => ['teardown', '--vmid', '9001', '--netbox-id', '4'],
    2,
    ['exactly one of --vmid N or --netbox-id N'],
  ],
  ['teardown --vmid 5', () => ['teardown', '--vmid', '5'], 2, ['--vmid']],
  ['approve without --reason', () => ['approve', 'wave-x', '--by', 'alice'], 2, ['--reason']],
  ['status --interval 0', () => ['status', 'x', '--interval', '0'], 2, ['--interval']],
  [
    '--config naming no file',
    () => ['--config', '/nonexistent/ferry.yaml', 'list'],
    2,
    ['/nonexistent/ferry.yaml: no such file'],
  ],
  [
    'a config file with bad keys (B4)',
    () => [
      '--config',
      file(stringify({ temporal: { namespace: '', nmespace: 'a' }, worker: { taskQueue: '' } })),
      'list',
    ],
    2,
    ['temporal.namespace', '"nmespace"', 'worker.taskQueue'],
  ],
  ['a config file that is not YAML', () => ['--config', file('temporal: [\n'), 'list'], 2, ['not valid YAML']],
  [
    'TEMPORAL_TLS not a boolean',
    () => ['list'],
    2,
    ['temporal.tls.enabled (environment TEMPORAL_TLS)'],
    { TEMPORAL_TLS: 'perhaps' },
  ],
  [
    'netbox setup with a token in the URL query (B5)',
    () => ['netbox', 'setup'],
    2,
    ['netbox.url', 'no query string'],
    { NETBOX_URL: 'https://netbox.example.com/api/?token=abc', NETBOX_TOKEN: 'nbt_a.b' },
  ],
  [
    'netbox setup with secrets and URL problems (B4)',
    () => ['netbox', 'setup'],
    2,
    ['netbox.token', 'no credentials in the URL', 'allowInsecureHttp'],
    { NETBOX_URL: 'http://u:p@netbox.example.com', NETBOX_TOKEN: '' },
  ],
  [
    'netbox setup with a missing caFile (B5)',
    () => ['netbox', 'setup'],
    2,
    ['netbox.caFile (environment NETBOX_CA_FILE)', 'no such file'],
    { NETBOX_URL: 'https://netbox.example.com', NETBOX_TOKEN: 'nbt_a.b', NETBOX_CA_FILE: '/nonexistent/nb-ca.pem' },
  ],
  [
    'webhook without its secret',
    () => ['webhook'],
    2,
    ["netbox.webhook.secret: missing: ferry's webhook receiver needs it; set FERRY_NETBOX_WEBHOOK_SECRET"],
    {
      NETBOX_URL: 'https://netbox.example.com',
      NETBOX_TOKEN: 'nbt_a.b',
      FERRY_NETBOX_WEBHOOK_URL: 'http://127.0.0.1:8787/netbox/webhook',
    },
  ],
  [
    'webhook with --listen that is not host:port',
    () => ['webhook', '--listen', '8787'],
    2,
    ["option '--listen <host:port>' argument '8787' is invalid", 'expected host:port'],
  ],
  [
    'netbox setup with a short webhook secret and a bad listen address, in one pass',
    () => ['netbox', 'setup'],
    2,
    [
      'netbox.webhook.secret (environment FERRY_NETBOX_WEBHOOK_SECRET): at least 16 characters',
      'netbox.webhook.listen (environment FERRY_NETBOX_WEBHOOK_LISTEN): host:port',
    ],
    {
      NETBOX_URL: 'https://netbox.example.com',
      NETBOX_TOKEN: 'nbt_a.b',
      FERRY_NETBOX_WEBHOOK_URL: 'https://ferry.example.com/netbox/webhook',
      FERRY_NETBOX_WEBHOOK_SECRET: 'short',
      FERRY_NETBOX_WEBHOOK_LISTEN: 'ferry',
    },
  ],
  [
    'discover with a missing vsphere.caFile (B5)',
    () => ['discover'],
    2,
    ['vsphere.caFile (environment VMWARE_CA_FILE)'],
    { VMWARE_HOST: 'vc', VMWARE_USER: 'u', VMWARE_PASSWORD: 'p', VMWARE_CA_FILE: '/nonexistent/vc-ca.pem' },
  ],
  [
    'an unreachable Temporal (B6): exit 1, one line, naming the variable that set the address',
    () => ['list'],
    1,
    [
      'cannot reach Temporal at 127.0.0.1:1 (from environment TEMPORAL_ADDRESS):',
      'correct TEMPORAL_ADDRESS (it overrides temporal.address)',
    ],
    { TEMPORAL_ADDRESS: '127.0.0.1:1' },
  ],
  [
    'an unreachable Temporal set in the file: names the file and its key',
    () => ['--config', file(stringify({ temporal: { address: '127.0.0.1:1' } })), 'status', 'wave-x'],
    1,
    ['cannot reach Temporal at 127.0.0.1:1 (temporal.address in ', 'correct temporal.address in '],
    { TEMPORAL_ADDRESS: '' },
  ],
  [
    'no address set: says it is the default and how to set one',
    () => ['list'],
    1,
    ['127.0.0.1:7233 (the default address: neither TEMPORAL_ADDRESS nor temporal.address is set)'],
    { TEMPORAL_ADDRESS: '' },
  ],
  // A secret in the file is refused by every command, not only by those that read its section.
  ...(['status wave-x', 'list', 'doctor', 'approve wave-x --by a --reason b'] as const).map((command): CliCase => [
    `a secret in ferry.yaml refused by ${command.split(' ')[0]}`,
    () => ['--config', file(stringify({ proxmox: { ...PVE, tokenSecret: 'x' } })), ...command.split(' ')],
    2,
    ['proxmox.tokenSecret', 'secrets are not read from files', 'PROXMOX_TOKEN_SECRET'],
  ]),
];

async function inBatches<T>(items: T[], size: number, run: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(run));
}

describe('the ferry command line', () => {
  const results = new Map<string, { code: number | null; output: string }>();
  beforeAll(async () => {
    const env = {
      FERRY_CONFIG: '',
      NETBOX_URL: '',
      NETBOX_TOKEN: '',
      VMWARE_HOST: '',
      PROXMOX_HOST: '',
      ...NO_TEMPORAL,
    };
    await inBatches(CLI_CASES, 12, async ([what, argv, , , extra]) => {
      const run = spawnFerry(argv(), { ...env, ...extra });
      results.set(what, { code: await run.exited, output: run.output() });
    });
  });

  it.each(CLI_CASES)('%s', (what, _argv, code, expected) => {
    const result = results.get(what)!;
    for (const part of expected) expect(result.output).toContain(part);
    expect(result.output).not.toMatch(STACK);
    expect({ what, code: result.code }).toEqual({ what, code });
  });
});

describe('on a terminal (tmux), as a person meets them', () => {
  const env = { FERRY_CONFIG: '', NETBOX_URL: '', NETBOX_TOKEN: '', VMWARE_HOST: '', PROXMOX_HOST: '' };

  it('a secret in ferry.yaml: refused by status, naming the key and the variable to use, exit 2', async () => {
    const config = file(stringify({ proxmox: { ...PVE, tokenSecret: 'x' } }));
    const { screen, code } = await ferryOnTerminal(dir, { ...env, ...NO_TEMPORAL }, [
      '--config',
      config,
      'status',
      'wave-x',
    ]);
    expect(screen).toContain('proxmox.tokenSecret');
    expect(screen).toContain('PROXMOX_TOKEN_SECRET');
    expect(screen).not.toMatch(STACK);
    expect(code).toBe(2);
  });

  it('Temporal unreachable: one line with the address, where it came from and what to correct, exit 1', async () => {
    const { screen, code } = await ferryOnTerminal(dir, { ...env, ...NO_TEMPORAL }, ['list']);
    const lines = screen.split('\n').filter((l) => l.trim() && !l.startsWith('[exit'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('cannot reach Temporal at 127.0.0.1:1 (from environment TEMPORAL_ADDRESS)');
    expect(lines[0]).toContain('correct TEMPORAL_ADDRESS');
    expect(code).toBe(1);
  });
});

describe('the worker', () => {
  async function worker(args: string[], env: Record<string, string>) {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'worker.ts'), ...args], {
      cwd: ROOT,
      env: { ...process.env, FERRY_CONFIG: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    return { code, output };
  }

  it('refuses a proxmox.caFile naming no file, before it connects (B5)', async () => {
    const config = file(
      stringify({ temporal: { address: '127.0.0.1:1' }, proxmox: { ...PVE, caFile: '/nonexistent/pve-ca.pem' } }),
    );
    const { code, output } = await worker(['--config', config], { PROXMOX_TOKEN_SECRET: 's' });
    expect(output).toContain('proxmox.caFile');
    expect(output).toContain('/nonexistent/pve-ca.pem: no such file');
    expect(code).toBe(2);
  });

  it('says in one line that Temporal is unreachable, with the address and how to set it (B6)', async () => {
    const { code, output } = await worker([], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    expect(output.trim()).toMatch(
      /^ferry worker: cannot reach Temporal at 127\.0\.0\.1:1 \(from environment TEMPORAL_ADDRESS\): .*correct TEMPORAL_ADDRESS/,
    );
    expect(output.trim().split('\n')).toHaveLength(1);
    expect(output).not.toMatch(/TransportError|connection\.ts/);
    expect(code).toBe(1);
  });
});

describe('a Temporal address where something else answers', () => {
  let servers: NotTemporal;
  beforeAll(async () => {
    servers = await startNotTemporal();
  });
  afterAll(() => servers?.close());

  it.each([
    ['status', ['status', 'wave-x']],
    ['list', ['list']],
    ['migrate', ['migrate', '--vm', 'x']],
    ['approve', ['approve', 'wave-x', '--by', 'a', '--reason', 'b']],
  ])(
    '%s against a gRPC server that is not Temporal: names the address, its origin and what to correct',
    async (_what, argv) => {
      const run = spawnFerry(argv, { FERRY_CONFIG: '', TEMPORAL_ADDRESS: servers.grpc });
      const code = await run.exited;
      const output = run.output().trim();
      expect(output).toContain(
        `the server at ${servers.grpc} (from environment TEMPORAL_ADDRESS) is not a Temporal frontend`,
      );
      expect(output).toContain('does not implement the method /temporal.api.workflowservice.v1.WorkflowService/');
      expect(output).toContain(
        "correct TEMPORAL_ADDRESS (it overrides temporal.address) to the Temporal frontend's host:port",
      );
      expect(output).not.toMatch(/^Failed to/);
      expect(output.split('\n')).toHaveLength(1);
      expect(code).toBe(1);
    },
  );

  it('an HTTP/1.1 server: the address, its origin and what to correct', async () => {
    const run = spawnFerry(['status', 'wave-x'], { FERRY_CONFIG: '', TEMPORAL_ADDRESS: servers.http });
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain(`cannot reach Temporal at ${servers.http} (from environment TEMPORAL_ADDRESS): `);
    expect(run.output()).toContain('correct TEMPORAL_ADDRESS');
  });

  it('the worker refuses to start against it instead of polling it forever', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'worker.ts')], {
      cwd: ROOT,
      env: { ...process.env, FERRY_CONFIG: '', TEMPORAL_ADDRESS: servers.grpc },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(output).toContain(
      `ferry worker: the server at ${servers.grpc} (from environment TEMPORAL_ADDRESS) is not a Temporal frontend`,
    );
    expect(code).toBe(1);
  });
});

test('the corpus holds at least 60 bad inputs', () => {
  expect(CONFIG_CASES.length + WAVE_CASES.length + SPEC_CASES.length + CLI_CASES.length + 2).toBeGreaterThanOrEqual(60);
});
