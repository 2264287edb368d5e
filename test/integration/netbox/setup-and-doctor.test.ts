import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseConfig } from '../../../src/config';
import { createActivities } from '../../../activities';
import { checkDns } from '../../../src/doctor/dns';
import { DnsClient } from '../../../src/dns/client';
import { tsigKey } from '../../../src/dns/tsig';
import { checkNetbox } from '../../../src/doctor/netbox';
import { startBind, type BindServer } from '../../../lab/bind-server';
import { startNetbox, type NetboxServer } from '../../../lab/netbox-server';
import { NetboxClient } from '../../../src/netbox/client';
import { idOnly } from '../../../src/netbox/schemas';
import { createDependencies } from '../../../worker/dependencies';
import type { doctor } from '../../../workflows/doctor';
import { spawnFerry } from '../../helpers/processes';
import { startTlsProxy } from '../../helpers/tls-proxy';
import { makeLabCertificates } from '../../../lab/vcsim/tls';
import {
  connectTestTemporal,
  createTestWorker,
  devServerAddress,
  uniqueName,
  type TestTemporal,
} from '../../helpers/temporal';

/** `ferry netbox setup` as a user runs it, and `doctor` against a real NetBox and a real BIND. */
describe('ferry netbox setup and doctor', () => {
  jest.setTimeout(120_000);
  let netbox: NetboxServer;
  let bind: BindServer;
  let client: NetboxClient;
  let temporal: TestTemporal;

  beforeAll(async () => {
    [netbox, bind, temporal] = await Promise.all([startNetbox(), startBind(), connectTestTemporal()]);
    client = NetboxClient.fromConfig({ url: netbox.url, token: netbox.tokenV2, validateCerts: true });
  });
  afterAll(async () => {
    await client?.close();
    await temporal?.close();
    await bind?.stop();
    await netbox?.stop();
  });

  const netboxConfig = (token = netbox.tokenV2) => ({ url: netbox.url, token, validateCerts: true });
  const dnsConfig = (secret = bind.key.secret) =>
    parseConfig(
      {
        dns: {
          server: bind.server,
          port: bind.port,
          tsigKeyName: bind.key.name,
          zones: [bind.forwardZone, bind.reverseZone],
        },
      },
      { FERRY_DNS_TSIG_SECRET: secret },
    ).dns!;
  const setup = async () => {
    const run = spawnFerry(['netbox', 'setup'], {
      NETBOX_URL: netbox.url,
      NETBOX_TOKEN: netbox.tokenV1,
      FERRY_CONFIG: '',
    });
    return { code: await run.exited, output: run.output() };
  };

  it('doctor tells a NetBox without ferry custom fields what to run', async () => {
    const verdict = await checkNetbox(netboxConfig());
    expect(verdict).toMatchObject({
      endpoint: 'netbox',
      ok: false,
      reachable: true,
      authenticated: true,
      version: `NetBox ${netbox.version}`,
    });
    expect(verdict.detail).toMatch(
      /custom fields are missing \(on VMs, interfaces or virtual disks\): ferry_vmid, ferry_node, .*ferry_owner; run `ferry netbox setup`/,
    );
  });

  it('`ferry netbox setup` creates the fields, extends one that exists elsewhere, refuses one of the wrong type, and is idempotent', async () => {
    const field = (body: Record<string, unknown>) =>
      client.http.request('POST', 'api/extras/custom-fields/', { schema: idOnly, body });
    const wrongType = await field({
      name: 'ferry_vmid',
      type: 'text',
      object_types: ['virtualization.virtualmachine'],
    });
    await field({ name: 'ferry_owner', type: 'text', object_types: ['dcim.device'] });

    const refused = await setup();
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('NetBox custom field ferry_vmid exists with type text; ferry needs integer');

    await client.http.request('DELETE', `api/extras/custom-fields/${wrongType.data.id}/`, {
      schema: idOnly.optional(),
    });
    const first = await setup();
    expect(first.code).toBe(0);
    expect(first.output).toMatch(/^created +ferry_vmid +integer +Proxmox VMID$/m);
    expect(first.output).toMatch(/^created +ferry_network +text +Bridge or VNet$/m);
    expect(first.output).toMatch(/^created +ferry_image +text +Disk image$/m);
    expect(first.output).toMatch(/^updated +ferry_owner +text +Owner$/m);
    expect(first.output.match(/^created /gm)).toHaveLength(12);

    const again = await setup();
    expect(again.code).toBe(0);
    expect(again.output.match(/^unchanged /gm)).toHaveLength(13);
    expect(await client.missingCustomFields()).toEqual([]);
  });

  it('the doctor workflow reports NetBox and DNS reachable, authenticated, with versions', async () => {
    const config = parseConfig(
      {
        temporal: { address: devServerAddress() },
        netbox: { url: netbox.url },
        dns: {
          server: bind.server,
          port: bind.port,
          tsigKeyName: bind.key.name,
          zones: [bind.forwardZone, bind.reverseZone],
        },
      },
      { NETBOX_TOKEN: netbox.tokenV2, FERRY_DNS_TSIG_SECRET: bind.key.secret },
    );
    const deps = await createDependencies(config);
    const taskQueue = uniqueName('doctor');
    const worker = await createTestWorker(temporal.nativeConnection, { taskQueue, activities: createActivities(deps) });
    const report = await worker.runUntil(
      temporal.client.workflow.execute<typeof doctor>('doctor', { taskQueue, workflowId: uniqueName('doctor') }),
    );
    await deps.netbox!.close();

    expect(report.verdicts.map((v) => v.endpoint)).toEqual(['temporal', 'netbox', 'dns']);
    expect(report.ok).toBe(true);
    expect(report.verdicts[1]).toMatchObject({
      endpoint: 'netbox',
      target: netbox.url,
      ok: true,
      reachable: true,
      authenticated: true,
      tls: 'plaintext',
      version: `NetBox ${netbox.version}`,
      detail: "v2 token accepted; ferry's custom fields are present",
    });
    expect(report.verdicts[2]).toMatchObject({
      endpoint: 'dns',
      target: `127.0.0.1:${bind.port}`,
      ok: true,
      reachable: true,
      authenticated: true,
      version: `server ${bind.version}`,
    });
    expect(report.verdicts[2]!.detail).toMatch(
      new RegExp(
        `^TSIG key ferry-key \\(hmac-sha256\\) accepted for ${bind.forwardZone} \\(serial \\d+\\), ${bind.reverseZone} \\(serial \\d+\\)$`,
      ),
    );
  });

  it('verifies NetBox TLS: refuses an unknown CA, trusts caFile, says when verification is off', async () => {
    const certDir = mkdtempSync(path.join(tmpdir(), 'ferry-netbox-tls-'));
    const certs = await makeLabCertificates(certDir);
    const proxy = await startTlsProxy(netbox.url, certs);
    try {
      const https = { ...netboxConfig(), url: proxy.url };
      const unknownCa = await checkNetbox(https);
      expect(unknownCa).toMatchObject({ ok: false, reachable: true, authenticated: null, tls: 'failed' });
      expect(unknownCa.detail).toMatch(
        /TLS verification failed \([A-Z_]+\); trust the server's CA with netbox\.caFile/,
      );

      expect(await checkNetbox({ ...https, caFile: certs.caFile })).toMatchObject({
        ok: true,
        tls: 'verified',
        version: `NetBox ${netbox.version}`,
      });
      expect(await checkNetbox({ ...https, validateCerts: false })).toMatchObject({ ok: true, tls: 'not-verified' });
      expect(await checkNetbox({ ...https, caFile: '/nonexistent/ca.pem' })).toMatchObject({
        ok: false,
        detail: 'netbox.caFile /nonexistent/ca.pem: cannot read it (ENOENT)',
      });
    } finally {
      await proxy.close();
      rmSync(certDir, { recursive: true, force: true });
    }
  });

  it('doctor reports refused credentials and an unreachable server', async () => {
    expect(await checkNetbox(netboxConfig(`nbt_${'x'.repeat(12)}.${'y'.repeat(40)}`))).toMatchObject({
      ok: false,
      reachable: true,
      authenticated: false,
      detail: expect.stringContaining('HTTP 403'),
    });
    expect(await checkNetbox({ ...netboxConfig(), url: 'http://127.0.0.1:9' })).toMatchObject({
      ok: false,
      reachable: false,
      authenticated: null,
    });

    const badSecret = await checkDns(dnsConfig(Buffer.alloc(32, 9).toString('base64')));
    expect(badSecret).toMatchObject({
      ok: false,
      reachable: true,
      authenticated: false,
      detail: expect.stringContaining('BADSIG'),
    });
    expect(await checkDns({ ...dnsConfig(), zones: [] })).toMatchObject({
      ok: true,
      reachable: true,
      authenticated: null,
      version: `server ${bind.version}`,
      detail: expect.stringContaining('no dns.zones configured'),
    });
    const closedPort = { ...dnsConfig(), port: 9 };
    const nowhere = await checkDns(
      closedPort,
      new DnsClient({ ...closedPort, key: tsigKey(bind.key.name, 'hmac-sha256', bind.key.secret), timeoutMs: 300 }),
    );
    expect(nowhere).toMatchObject({ ok: false, reachable: false });
  });
});
