import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DnsClient } from '../src/dns/client';
import { tsigKey } from '../src/dns/tsig';
import { freePort } from './free-port';
import { startServerProcess } from './server-process';
import { toolPath } from './tools';

export interface BindKey {
  name: string;
  algorithm: 'hmac-sha256';
  /** Base64, as tsig-keygen prints it. */
  secret: string;
}

export interface BindServer {
  server: '127.0.0.1';
  port: number;
  /** Allowed to update both zones (update-policy zonesub ANY). */
  key: BindKey;
  /** Known to the server but granted nothing: its updates are REFUSED. */
  readOnlyKey: BindKey;
  forwardZone: string;
  reverseZone: string;
  version: string;
  dir: string;
  stop(): Promise<void>;
}

export interface BindOptions {
  forwardZone?: string;
  reverseZone?: string;
  /** Folder for named.conf, zone files and journals; a new temporary one when omitted. */
  dir?: string;
  keyName?: string;
}

const newKey = (name: string): BindKey => ({
  name,
  algorithm: 'hmac-sha256',
  secret: randomBytes(32).toString('base64'),
});

function zoneFile(zone: string, nameServerZone: string): string {
  return [
    '$TTL 300',
    `@ IN SOA ns.${nameServerZone}. hostmaster.${nameServerZone}. ( 1 3600 600 86400 300 )`,
    `@ IN NS ns.${nameServerZone}.`,
    ...(zone === nameServerZone ? ['ns IN A 127.0.0.1'] : []),
    '',
  ].join('\n');
}

/**
 * Starts BIND 9 (`named -g`, from Debian) on a free loopback port with a TSIG key and two dynamic zones,
 * a forward and a reverse one, in a folder of its own. Used by the DNS tests and the lab.
 */
export async function startBind(options: BindOptions = {}): Promise<BindServer> {
  const forwardZone = options.forwardZone ?? 'lab.ferry.test';
  const reverseZone = options.reverseZone ?? '2.0.192.in-addr.arpa';
  const dir = options.dir ?? mkdtempSync(path.join(tmpdir(), 'ferry-bind-'));
  mkdirSync(dir, { recursive: true });
  const key = newKey(options.keyName ?? 'ferry-key');
  const readOnlyKey = newKey('ferry-readonly');
  const port = await freePort();

  const keyBlock = (k: BindKey) => `key "${k.name}" { algorithm ${k.algorithm}; secret "${k.secret}"; };`;
  const zoneBlock = (zone: string) =>
    `zone "${zone}" { type primary; file "${zone}.zone"; update-policy { grant ${key.name} zonesub ANY; }; };`;
  for (const zone of [forwardZone, reverseZone]) {
    writeFileSync(path.join(dir, `${zone}.zone`), zoneFile(zone, forwardZone));
    rmSync(path.join(dir, `${zone}.zone.jnl`), { force: true });
  }
  writeFileSync(
    path.join(dir, 'named.conf'),
    [
      'options {',
      `  directory "${dir}";`,
      `  pid-file "${path.join(dir, 'named.pid')}";`,
      `  session-keyfile "${path.join(dir, 'session.key')}";`,
      `  listen-on port ${port} { 127.0.0.1; };`,
      '  listen-on-v6 { none; };',
      '  recursion no;',
      '  dnssec-validation no;',
      '  allow-transfer { none; };',
      '  notify no;',
      '};',
      'controls { };',
      keyBlock(key),
      keyBlock(readOnlyKey),
      zoneBlock(forwardZone),
      zoneBlock(reverseZone),
      '',
    ].join('\n'),
    { mode: 0o600 },
  );

  const named = startServerProcess('named', toolPath('named'), [
    '-g',
    '-4',
    '-n',
    '1',
    '-c',
    path.join(dir, 'named.conf'),
  ]);
  const probe = new DnsClient({
    server: '127.0.0.1',
    port,
    key: tsigKey(key.name, key.algorithm, key.secret),
    timeoutMs: 500,
  });
  await named.waitUntil(async () => {
    if (!/running/.test(named.output())) return false;
    return probe.soaSerial(forwardZone).then(
      () => true,
      () => false,
    );
  }, 30_000);
  const version = (await probe.serverVersion()) ?? 'unknown';

  return {
    server: '127.0.0.1',
    port,
    key,
    readOnlyKey,
    forwardZone,
    reverseZone,
    version,
    dir,
    async stop() {
      await named.stop();
      if (!options.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
