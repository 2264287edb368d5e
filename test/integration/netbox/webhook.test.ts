import { randomBytes, randomInt } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { request, Agent } from 'undici';
import { freePort } from '../../../lab/free-port';
import { startNetbox, type NetboxServer } from '../../../lab/netbox-server';
import { makeLabCertificates } from '../../../lab/vcsim/tls';
import { parseConfig } from '../../../src/config';
import { changeVmWorkflowId, type ChangeVmInput, type NetboxEdit } from '../../../src/domain/change-vm';
import { authorizationHeader } from '../../../src/netbox/http';
import { webhookSignature } from '../../../src/netbox/webhook-signature';
import { startNetboxWebhookReceiver } from '../../../src/webhook/receiver';
import { spawnFerry, type Spawned } from '../../helpers/processes';
import { startWorkerProcess } from '../../helpers/worker-process';
import { connectTestTemporal, devServerAddress, uniqueName, type TestTemporal } from '../../helpers/temporal';
import { until } from '../../helpers/wait';

/** What Temporal recorded for one `change-<vmid>`: its runs, the first run's start input and its signals. */
async function recorded(client: Client, workflowId: string) {
  const handle = client.workflow.getHandle(workflowId);
  const description = await handle.describe();
  const { events } = await handle.fetchHistory();
  const decode = (payloads: unknown) =>
    ((payloads as { payloads?: unknown[] } | null)?.payloads ?? []).map((p) =>
      defaultPayloadConverter.fromPayload(p as never),
    );
  const starts = (events ?? []).filter((e) => e.workflowExecutionStartedEventAttributes);
  const signals = (events ?? []).flatMap((e) => {
    const s = e.workflowExecutionSignaledEventAttributes;
    return s ? [{ name: s.signalName, args: decode(s.input) }] : [];
  });
  return {
    description,
    starts: starts.length,
    input: decode(starts[0]?.workflowExecutionStartedEventAttributes?.input)[0] as ChangeVmInput,
    signals,
    edits: signals.map((s) => s.args[0] as NetboxEdit),
    text: JSON.stringify(events),
  };
}

/**
 * NetBox's own event rule and worker deliver VM, interface and virtual-disk edits to `ferry webhook`,
 * signed; the receiver signals-with-start `changeVm`. No ferry worker runs: signal-with-start creates the
 * execution all the same, and its history holds the start input and every signal.
 */
describe('NetBox webhook → changeVm (real NetBox and its rqworker, real Temporal)', () => {
  jest.setTimeout(300_000);
  let netbox: NetboxServer;
  let temporal: TestTemporal;
  let receiver: Spawned | undefined;
  let port: number;
  const secret = randomBytes(24).toString('hex');
  const taskQueue = uniqueName('change');
  // VMIDs no other test uses (their workflow ids live on the run's shared dev server).
  const vmidBase = 900_000_000 + randomInt(0, 90_000_000);
  const receiverUrl = () => `http://127.0.0.1:${port}/netbox/webhook`;
  const env = (over: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    FERRY_CONFIG: '',
    NETBOX_URL: netbox.url,
    NETBOX_TOKEN: netbox.tokenV2,
    FERRY_NETBOX_WEBHOOK_URL: receiverUrl(),
    FERRY_NETBOX_WEBHOOK_SECRET: secret,
    TEMPORAL_ADDRESS: devServerAddress(),
    FERRY_TASK_QUEUE: taskQueue,
    ...over,
  });
  const setup = async (over: NodeJS.ProcessEnv = {}) => {
    const run = spawnFerry(['netbox', 'setup'], env(over));
    return { code: await run.exited, output: run.output() };
  };

  /** A NetBox API call as a user makes it; `requestId` is NetBox's X-Request-ID, which its webhook carries. */
  const api = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', apiPath: string, body?: unknown) => {
    const response = await request(`${netbox.url}/api/${apiPath}`, {
      method,
      headers: {
        authorization: authorizationHeader(netbox.tokenV2),
        accept: 'application/json',
        'content-type': 'application/json',
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.body.text();
    if (response.statusCode >= 300) throw new Error(`${method} ${apiPath}: ${response.statusCode} ${text}`);
    return {
      data: (text ? JSON.parse(text) : {}) as { id: number } & Record<string, unknown>,
      requestId: String(response.headers['x-request-id']),
    };
  };
  let clusterId: number;
  const createVm = async (name: string, status: string, vmid?: number) =>
    (
      await api('POST', 'virtualization/virtual-machines/', {
        name,
        cluster: clusterId,
        status,
        memory: 2048,
        ...(vmid !== undefined ? { custom_fields: { ferry_vmid: vmid } } : {}),
      })
    ).data.id;
  const log = () => receiver?.output() ?? '';
  const post = (body: Buffer, headers: Record<string, string> = {}) =>
    request(receiverUrl(), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const notStarted = async (workflowId: string) => {
    await expect(temporal.client.workflow.getHandle(workflowId).describe()).rejects.toBeInstanceOf(
      WorkflowNotFoundError,
    );
  };

  beforeAll(async () => {
    [netbox, temporal] = await Promise.all([startNetbox({ rqWorker: true }), connectTestTemporal()]);
    port = await freePort(); // after NetBox took its ports: a port picked alongside could be the same one
    const type = await api('POST', 'virtualization/cluster-types/', { name: 'Proxmox VE', slug: 'pve' });
    clusterId = (await api('POST', 'virtualization/clusters/', { name: 'pve-lab', type: type.data.id })).data.id;
  });
  afterAll(async () => {
    receiver?.child.kill('SIGTERM');
    await receiver?.exited;
    // Only this file's runs: nothing serves them, and other files may run changeVm on the same server.
    for (let vmid = vmidBase; vmid <= vmidBase + 8; vmid++)
      await temporal.client.workflow
        .getHandle(changeVmWorkflowId(vmid))
        .terminate('test over')
        .catch(() => undefined);
    await temporal?.close();
    await netbox?.stop();
  });

  it('`ferry netbox setup` creates the webhook and the event rule; a rerun changes nothing; a new URL or secret is updated in place', async () => {
    const first = await setup();
    expect(first.code).toBe(0);
    expect(first.output).toMatch(/^created +ferry_vmid /m);
    expect(first.output).toContain(`created   webhook        ferry → POST ${receiverUrl()}, signed (HMAC-SHA512)`);
    expect(first.output).toMatch(
      /^created {3}event rule {5}ferry: created, updated and deleted VMs, interfaces and virtual disks → webhook ferry$/m,
    );
    expect(first.output).not.toContain(secret);

    const [webhook] = (await api('GET', 'extras/webhooks/?name=ferry')).data.results as Array<Record<string, unknown>>;
    expect(webhook).toMatchObject({
      payload_url: receiverUrl(),
      http_method: 'POST',
      http_content_type: 'application/json',
      body_template: '',
      secret,
      ssl_verification: true,
      ca_file_path: null,
    });
    const [rule] = (await api('GET', 'extras/event-rules/?name=ferry')).data.results as Array<Record<string, unknown>>;
    expect(rule).toMatchObject({
      enabled: true,
      event_types: ['object_created', 'object_updated', 'object_deleted'],
      action_type: { value: 'webhook' },
      action_object_type: 'extras.webhook',
      action_object_id: webhook!.id,
      conditions: null,
    });
    expect([...(rule!.object_types as string[])].sort()).toEqual([
      'virtualization.virtualdisk',
      'virtualization.virtualmachine',
      'virtualization.vminterface',
    ]);

    const again = await setup();
    expect(again.code).toBe(0);
    expect(again.output).toMatch(/^unchanged webhook {8}ferry/m);
    expect(again.output).toMatch(/^unchanged event rule {5}ferry/m);
    const lastUpdated = async () => [
      (await api('GET', `extras/webhooks/${webhook!.id}/`)).data.last_updated,
      (await api('GET', `extras/event-rules/${rule!.id}/`)).data.last_updated,
    ];
    expect(await lastUpdated()).toEqual([webhook!.last_updated, rule!.last_updated]);

    const moved = await setup({
      FERRY_NETBOX_WEBHOOK_URL: 'http://127.0.0.1:9/netbox/webhook',
      FERRY_NETBOX_WEBHOOK_SECRET: 'another-secret-0123456789',
    });
    expect(moved.output).toMatch(
      /^updated {3}webhook {8}ferry → POST http:\/\/127\.0\.0\.1:9\/netbox\/webhook, signed \(HMAC-SHA512\) \(changed: payload_url, secret\)$/m,
    );
    expect(moved.output).toMatch(/^unchanged event rule /m);
    const back = await setup();
    expect(back.output).toMatch(/^updated {3}webhook .*\(changed: payload_url, secret\)$/m);
    const after = (await api('GET', 'extras/webhooks/?name=ferry')).data.results as Array<Record<string, unknown>>;
    expect(after).toEqual([expect.objectContaining({ id: webhook!.id, payload_url: receiverUrl(), secret })]);
  });

  it("delivers a VM's memory, an interface and a virtual disk edit, signed, to one changeVm with the right payload; a planned VM is left to provisioning", async () => {
    receiver = spawnFerry(['webhook', '--listen', `127.0.0.1:${port}`], env());
    await receiver.waitFor(/ferry webhook: listening on http:\/\/127\.0\.0\.1:\d+\/netbox\/webhook/, 60_000);
    const vmid = vmidBase + 1;
    const workflowId = changeVmWorkflowId(vmid);
    const vm = await createVm('web-change', 'planned', vmid);
    const iface = (await api('POST', 'virtualization/interfaces/', { virtual_machine: vm, name: 'net0' })).data.id;
    const disk = (await api('POST', 'virtualization/virtual-disks/', { virtual_machine: vm, name: 'scsi0', size: 10 }))
      .data.id;
    // Three creations while planned: provisioning's, delivered and ignored (the interface's and disk's after reading the VM).
    await until(
      'three ignored deliveries',
      async () =>
        (log().match(new RegExp(`ignored: NetBox VM ${vm} is planned: provisioning builds it`, 'g')) ?? []).length ===
          3 || undefined,
    );
    await notStarted(workflowId);

    const activated = await api('PATCH', `virtualization/virtual-machines/${vm}/`, { status: 'staged' });
    const memory = await api('PATCH', `virtualization/virtual-machines/${vm}/`, { memory: 4096 });
    const mtu = await api('PATCH', `virtualization/interfaces/${iface}/`, { mtu: 9000 });
    const grown = await api('PATCH', `virtualization/virtual-disks/${disk}/`, { size: 20 });
    const run = await until('four netboxEdited signals', async () => {
      const r = await recorded(temporal.client, workflowId);
      return r.signals.length >= 4 ? r : undefined;
    });
    expect(run.description).toMatchObject({ type: 'changeVm', taskQueue, status: { name: 'RUNNING' } });
    expect(run.starts).toBe(1);
    expect(run.input).toEqual({
      netboxId: vm,
      vmid,
      trigger: {
        source: 'netbox-webhook',
        requestId: activated.requestId,
        at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*\+00:00$/),
      },
    });
    expect(run.signals.map((s) => s.name)).toEqual(['netboxEdited', 'netboxEdited', 'netboxEdited', 'netboxEdited']);
    const at = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);
    expect(run.edits).toEqual([
      { model: 'virtualization.virtualmachine', objectId: vm, event: 'updated', at, requestId: activated.requestId },
      { model: 'virtualization.virtualmachine', objectId: vm, event: 'updated', at, requestId: memory.requestId },
      { model: 'virtualization.vminterface', objectId: iface, event: 'updated', at, requestId: mtu.requestId },
      { model: 'virtualization.virtualdisk', objectId: disk, event: 'updated', at, requestId: grown.requestId },
    ]);
    expect(run.input.trigger.at).toBe(run.edits[0]!.at);
    expect(run.text).not.toContain(secret);
    expect(log()).toContain(
      `netbox webhook: updated virtualdisk ${disk} of NetBox VM ${vm} (request ${grown.requestId}): signalled ${workflowId}`,
    );

    // ferry's own record of a run (the baseline it applied) is not an edit: NetBox's snapshots say so.
    await api('PATCH', `virtualization/virtual-machines/${vm}/`, {
      custom_fields: { ferry_applied: { version: 1, applied: { memory: '4096' }, accepted: {} } },
    });
    await until(
      "ferry's own baseline write not followed",
      async () =>
        log().includes(
          `NetBox VM ${vm}: only custom_fields.ferry_applied changed, ferry's own record of a change it made`,
        ) || undefined,
    );
    expect((await recorded(temporal.client, workflowId)).signals).toHaveLength(4);
  });

  it('lands a burst of edits on one workflow id, one run', async () => {
    const vmid = vmidBase + 2;
    const workflowId = changeVmWorkflowId(vmid);
    const vm = await createVm('db-burst', 'active', vmid);
    const burst = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        api('PATCH', `virtualization/virtual-machines/${vm}/`, { comments: `edit ${i}` }),
      ),
    );
    const ids = new Set(burst.map((b) => b.requestId));
    const run = await until('the burst signalled', async () => {
      const r = await recorded(temporal.client, workflowId);
      return r.edits.filter((e) => e.requestId && ids.has(e.requestId)).length === 8 ? r : undefined;
    });
    expect(run.starts).toBe(1);
    expect(run.edits).toHaveLength(9); // the creation, then the eight edits
    expect(run.edits[0]).toMatchObject({ event: 'created', objectId: vm });
    const runs = [];
    for await (const wf of temporal.client.workflow.list({ query: `WorkflowId = "${workflowId}"` }))
      runs.push(wf.runId);
    expect(runs).toEqual([run.description.runId]);
  });

  it('refuses an unsigned and a forged call (401, 403) and starts nothing; the same body signed goes through', async () => {
    const vmid = vmidBase + 3;
    const workflowId = changeVmWorkflowId(vmid);
    const body = Buffer.from(
      JSON.stringify({
        event: 'updated',
        timestamp: new Date().toISOString(),
        object_type: 'virtualization.virtualmachine',
        data: { id: 4_000_000, status: { value: 'active', label: 'Active' }, custom_fields: { ferry_vmid: vmid } },
        request: { id: 'forged-request', user: 'mallory' },
      }),
    );
    const unsigned = await post(body);
    expect(unsigned.statusCode).toBe(401);
    expect(await unsigned.body.json()).toEqual({ error: 'no X-Hook-Signature header: the call is not signed' });
    const forged = await post(body, { 'x-hook-signature': webhookSignature(body, 'guessed-secret-0123456789') });
    expect(forged.statusCode).toBe(403);
    await forged.body.dump();
    const tampered = Buffer.from(body.toString().replace(String(vmid), String(vmid + 1)));
    const replayed = await post(tampered, { 'x-hook-signature': webhookSignature(body, secret) });
    expect(replayed.statusCode).toBe(403);
    await replayed.body.dump();
    await notStarted(workflowId);
    await notStarted(changeVmWorkflowId(vmid + 1));
    expect(log()).toMatch(
      /netbox webhook: refused \(missing\): no X-Hook-Signature header: the call is not signed; nothing started/,
    );
    expect(log().match(/netbox webhook: refused \(forged\)/g)).toHaveLength(2);

    const genuine = await post(body, { 'x-hook-signature': webhookSignature(body, secret) });
    expect(genuine.statusCode).toBe(202);
    expect(await genuine.body.json()).toMatchObject({ workflowId });
    expect((await recorded(temporal.client, workflowId)).edits).toEqual([
      expect.objectContaining({ requestId: 'forged-request' }),
    ]);
  });

  it('answers 400 with what is wrong to a signed body that is not NetBox’s payload', async () => {
    const body = Buffer.from(
      JSON.stringify({ event: 'updated', object_type: 'virtualization.virtualdisk', data: { id: 1 } }),
    );
    const reply = await post(body, { 'x-hook-signature': webhookSignature(body, secret) });
    expect(reply.statusCode).toBe(400);
    expect(await reply.body.json()).toEqual({
      error: "not NetBox's webhook payload",
      problems: [expect.stringMatching(/^timestamp: /)],
    });
  });

  it('leaves a VM without a VMID, and a deleted VM with its interfaces and disks, alone, saying why', async () => {
    const unmanaged = await createVm('not-ferrys', 'active');
    const vmid = vmidBase + 4;
    const doomed = await createVm('to-delete', 'active', vmid);
    await api('POST', 'virtualization/virtual-disks/', { virtual_machine: doomed, name: 'scsi0', size: 5 });
    await until(
      'the disk creation signalled',
      async () => (await recorded(temporal.client, changeVmWorkflowId(vmid))).edits.length === 2 || undefined,
    );
    await api('DELETE', `virtualization/virtual-machines/${doomed}/`);
    await until(
      'the deletions delivered',
      async () => log().includes(`deleted virtualmachine ${doomed} (request`) || undefined,
    );
    expect(log()).toContain(`ignored: NetBox VM ${unmanaged} has no ferry_vmid: not a VM ferry built`);
    expect(log()).toMatch(
      new RegExp(
        `deleted virtualdisk \\d+ of NetBox VM ${doomed} .*ignored: NetBox VM ${doomed} no longer exists: teardown`,
      ),
    );
    expect(log()).toContain(`ignored: NetBox VM ${doomed} was deleted: teardown (teardownVm) owns that, not changeVm`);
    expect((await recorded(temporal.client, changeVmWorkflowId(vmid))).edits).toHaveLength(2);
  });

  it('answers 503 when Temporal cannot be reached, so NetBox shows the delivery failed', async () => {
    const closed = await freePort();
    const config = parseConfig(
      {
        temporal: { address: `127.0.0.1:${closed}` },
        netbox: { url: netbox.url, webhook: { url: 'http://127.0.0.1/netbox/webhook', listen: '127.0.0.1:0' } },
      },
      { NETBOX_TOKEN: netbox.tokenV2, FERRY_NETBOX_WEBHOOK_SECRET: secret },
    );
    const lines: string[] = [];
    const down = await startNetboxWebhookReceiver(config, { log: (l) => lines.push(l) });
    try {
      const body = Buffer.from(
        JSON.stringify({
          event: 'updated',
          timestamp: new Date().toISOString(),
          object_type: 'virtualization.virtualmachine',
          data: { id: 5, status: { value: 'active' }, custom_fields: { ferry_vmid: vmidBase + 5 } },
        }),
      );
      const started = Date.now();
      const reply = await request(down.url, {
        method: 'POST',
        body,
        headers: { 'x-hook-signature': webhookSignature(body, secret) },
      });
      expect(reply.statusCode).toBe(503);
      expect(await reply.body.json()).toEqual({
        error: expect.stringMatching(
          new RegExp(`^change-${vmidBase + 5} not signalled: Temporal did not take the signal: `),
        ),
      });
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(lines).toEqual([expect.stringMatching(/not signalled: Temporal did not take the signal/)]);
    } finally {
      await down.close();
    }
  });

  it('delivers over HTTPS only once NetBox verifies the receiver with the CA file the config names', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ferry-webhook-tls-'));
    const certs = await makeLabCertificates(dir);
    const tlsPort = await freePort();
    const url = `https://127.0.0.1:${tlsPort}/netbox/webhook`;
    const over = { FERRY_NETBOX_WEBHOOK_URL: url, FERRY_NETBOX_WEBHOOK_LISTEN: `127.0.0.1:${tlsPort}` };
    const config = parseConfig(
      {
        temporal: { address: devServerAddress() },
        worker: { taskQueue },
        netbox: {
          url: netbox.url,
          webhook: { url, caFile: certs.caFile, certFile: certs.certFile, keyFile: certs.keyFile },
        },
      },
      env(over),
    );
    const lines: string[] = [];
    const tls = await startNetboxWebhookReceiver(config, { log: (l) => lines.push(l) });
    const untrusting = new Agent();
    try {
      expect(tls.url).toBe(url);
      // Without the CA file NetBox does not trust the receiver's certificate: its worker fails the delivery.
      const untrusted = await setup(over);
      expect(untrusted.output).toMatch(/^updated {3}webhook .*\(changed: payload_url\)$/m);
      const refusedVm = await createVm('tls-untrusted', 'active', vmidBase + 6);
      await until(
        'NetBox refusing the certificate',
        async () => /CERTIFICATE_VERIFY_FAILED/.test(netbox.rqWorkerOutput!()) || undefined,
      );
      expect(lines).toEqual([]);
      await notStarted(changeVmWorkflowId(vmidBase + 6));

      const yaml = path.join(dir, 'ferry.yaml');
      writeFileSync(yaml, `netbox:\n  webhook:\n    url: ${url}\n    caFile: ${certs.caFile}\n`);
      const trusted = await setup({ ...over, FERRY_CONFIG: yaml });
      expect(trusted.output).toMatch(/^updated {3}webhook .*\(changed: ca_file_path\)$/m);
      await api('PATCH', `virtualization/virtual-machines/${refusedVm}/`, { memory: 3072 });
      await until('the delivery over HTTPS', async () =>
        lines.find((l) => l.includes(`signalled ${changeVmWorkflowId(vmidBase + 6)}`)),
      );
      // The receiver serves that certificate: a client that does not trust the lab CA refuses it too.
      await expect(request(url, { method: 'POST', dispatcher: untrusting })).rejects.toThrow(/certificate/i);
    } finally {
      await untrusting.close();
      await tls.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs inside the worker process when netbox.webhook.inWorker is set, and stops with it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ferry-webhook-worker-'));
    const workerPort = await freePort();
    const url = `http://127.0.0.1:${workerPort}/netbox/webhook`;
    const workerQueue = uniqueName('change-worker');
    // A worker that serves only the SDN activity queue: no workflow bundle to build, and nobody runs changeVm.
    const worker = await startWorkerProcess({
      configFile: path.join(dir, 'ferry.yaml'),
      config: {
        temporal: { address: devServerAddress() },
        worker: { taskQueue: workerQueue, taskQueues: { sdn: { maxConcurrentActivities: 1 } } },
        netbox: { url: netbox.url, webhook: { url, listen: `127.0.0.1:${workerPort}`, inWorker: true } },
      },
      env: { NETBOX_TOKEN: netbox.tokenV2, FERRY_NETBOX_WEBHOOK_SECRET: secret },
    });
    try {
      expect(worker.output()).toContain(`ferry worker: NetBox webhook receiver on ${url}`);
      const vmid = vmidBase + 7;
      const body = Buffer.from(
        JSON.stringify({
          event: 'updated',
          timestamp: new Date().toISOString(),
          object_type: 'virtualization.virtualmachine',
          data: { id: 4_000_001, status: { value: 'active' }, custom_fields: { ferry_vmid: vmid } },
        }),
      );
      const reply = await request(url, {
        method: 'POST',
        body,
        headers: { 'x-hook-signature': webhookSignature(body, secret) },
      });
      expect(reply.statusCode).toBe(202);
      await reply.body.dump();
      expect((await recorded(temporal.client, changeVmWorkflowId(vmid))).description).toMatchObject({
        type: 'changeVm',
        taskQueue: workerQueue,
      });
      expect(await worker.stop()).toBe(0);
      await expect(request(url, { method: 'POST', body })).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      await worker.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
