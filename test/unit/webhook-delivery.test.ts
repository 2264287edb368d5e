import type { ChangeDecision, VmFacts } from '../../src/domain/netbox-events';
import { webhookSignature } from '../../src/netbox/webhook-signature';
import { handleDelivery, type DeliveryDeps } from '../../src/webhook/delivery';
import { TemporalUnavailable } from '../../src/webhook/signal-change';

type Signal = Extract<ChangeDecision, { kind: 'signal' }>;

/** The receiver's decisions with NetBox and Temporal replaced by recorders (the real ones: test/integration/netbox/webhook.test.ts). */
describe('handleDelivery (one NetBox webhook delivery)', () => {
  const secret = 'unit-test-secret-0123456789';
  const payload = (over: Record<string, unknown> = {}) =>
    Buffer.from(
      JSON.stringify({
        event: 'updated',
        timestamp: '2026-12-05T20:25:48.348536+00:00',
        object_type: 'virtualization.virtualdisk',
        data: { id: 3, size: 20, virtual_machine: { id: 7 } },
        request: { id: 'req-1', user: 'ferry' },
        ...over,
      }),
    );
  const setup = (vm: VmFacts | 'gone' | Error = { status: 'active', vmid: 4321 }, signalError?: Error) => {
    const signals: Signal[] = [];
    const reads: number[] = [];
    const log: string[] = [];
    const deps: DeliveryDeps = {
      secret,
      async readVm(id) {
        reads.push(id);
        if (vm instanceof Error) throw vm;
        return vm;
      },
      async signal(decision) {
        if (signalError) throw signalError;
        signals.push(decision);
        return { runId: 'run-1' };
      },
      log: (line) => log.push(line),
    };
    return { deps, signals, reads, log };
  };
  const signed = (body: Buffer) => webhookSignature(body, secret);

  it('signals-with-start the VM’s changeVm and answers 202 once Temporal has it', async () => {
    const { deps, signals, reads, log } = setup();
    const body = payload();
    const reply = await handleDelivery(deps, body, signed(body));
    expect(reply).toEqual({ status: 202, body: { workflowId: 'change-4321', runId: 'run-1' } });
    expect(reads).toEqual([7]);
    expect(signals).toEqual([
      {
        kind: 'signal',
        workflowId: 'change-4321',
        start: {
          netboxId: 7,
          vmid: 4321,
          trigger: { source: 'netbox-webhook', requestId: 'req-1', at: '2026-12-05T20:25:48.348536+00:00' },
        },
        edit: {
          model: 'virtualization.virtualdisk',
          objectId: 3,
          event: 'updated',
          at: '2026-12-05T20:25:48.348536+00:00',
          requestId: 'req-1',
        },
      },
    ]);
    expect(log).toEqual([
      'netbox webhook: updated virtualdisk 3 of NetBox VM 7 (request req-1): signalled change-4321 (run run-1)',
    ]);
  });

  it('refuses an unsigned call with 401 and a forged one with 403, before reading anything', async () => {
    const { deps, signals, reads, log } = setup();
    const body = payload();
    expect(await handleDelivery(deps, body, undefined)).toMatchObject({ status: 401 });
    expect(await handleDelivery(deps, body, webhookSignature(body, 'not-the-secret-at-all'))).toMatchObject({
      status: 403,
    });
    const tampered = payload({ data: { id: 3, size: 2000, virtual_machine: { id: 7 } } });
    expect(await handleDelivery(deps, tampered, signed(body))).toMatchObject({ status: 403 });
    expect([signals, reads]).toEqual([[], []]);
    expect(log).toEqual([
      expect.stringMatching(/^netbox webhook: refused \(missing\): no X-Hook-Signature header.*; nothing started$/),
      expect.stringMatching(/^netbox webhook: refused \(forged\): X-Hook-Signature does not match the body/),
      expect.stringMatching(/^netbox webhook: refused \(forged\)/),
    ]);
  });

  it('answers 400 with what is wrong for a signed body that is not NetBox’s payload', async () => {
    const { deps, signals } = setup();
    const notJson = Buffer.from('event=updated');
    expect(await handleDelivery(deps, notJson, signed(notJson))).toEqual({
      status: 400,
      body: { error: "not NetBox's webhook payload", problems: [expect.stringMatching(/^\(body\): not JSON/)] },
    });
    const noVm = payload({ data: { id: 3 } });
    expect(await handleDelivery(deps, noVm, signed(noVm))).toEqual({
      status: 400,
      body: { error: "not NetBox's webhook payload", problems: [expect.stringMatching(/^data\.virtual_machine: /)] },
    });
    expect(signals).toEqual([]);
  });

  it('answers 200 with the reason for what is not ferry’s, and starts nothing', async () => {
    const planned = setup({ status: 'planned', vmid: 4321 });
    const body = payload();
    expect(await handleDelivery(planned.deps, body, signed(body))).toEqual({
      status: 200,
      body: { ignored: 'NetBox VM 7 is planned: provisioning builds it (provisionVm), not changeVm' },
    });
    const gone = setup('gone');
    expect((await handleDelivery(gone.deps, body, signed(body))).body).toEqual({
      ignored: 'NetBox VM 7 no longer exists: teardown (teardownVm) owns that, not changeVm',
    });
    const device = payload({ object_type: 'dcim.device' });
    expect(await handleDelivery(planned.deps, device, signed(device))).toMatchObject({ status: 200 });
    expect([...planned.signals, ...gone.signals]).toEqual([]);
    expect(planned.log[0]).toBe(
      'netbox webhook: updated virtualdisk 3 of NetBox VM 7 (request req-1): ignored: NetBox VM 7 is planned: provisioning builds it (provisionVm), not changeVm',
    );
  });

  it('takes a VM’s facts from its own payload, without reading it', async () => {
    const { deps, reads, signals } = setup();
    const body = payload({
      object_type: 'virtualization.virtualmachine',
      data: { id: 7, status: { value: 'staged' }, custom_fields: { ferry_vmid: 555 } },
    });
    expect(await handleDelivery(deps, body, signed(body))).toMatchObject({
      status: 202,
      body: { workflowId: 'change-555' },
    });
    expect(reads).toEqual([]);
    expect(signals[0]!.edit).toMatchObject({ model: 'virtualization.virtualmachine', objectId: 7 });
  });

  it('answers 503 when NetBox or Temporal cannot be reached, so NetBox shows the delivery failed', async () => {
    const body = payload();
    const netboxDown = setup(
      new Error('NetBox GET /api/virtualization/virtual-machines/7/: NetBox is unreachable (ECONNREFUSED)'),
    );
    expect(await handleDelivery(netboxDown.deps, body, signed(body))).toEqual({
      status: 503,
      body: {
        error:
          'cannot read NetBox VM 7: NetBox GET /api/virtualization/virtual-machines/7/: NetBox is unreachable (ECONNREFUSED)',
      },
    });
    const temporalDown = setup(
      undefined,
      new TemporalUnavailable('Temporal did not take the signal: Connection refused'),
    );
    expect(await handleDelivery(temporalDown.deps, body, signed(body))).toEqual({
      status: 503,
      body: { error: 'change-4321 not signalled: Temporal did not take the signal: Connection refused' },
    });
    const refused = setup(undefined, new Error('Namespace nope is not found.'));
    expect((await handleDelivery(refused.deps, body, signed(body))).status).toBe(500);
  });
});
