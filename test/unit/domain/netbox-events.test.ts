import { changeVmWorkflowId } from '../../../src/domain/change-vm';
import { changeDecision, describeEdit, parseNetboxDelivery, type NetboxEvent } from '../../../src/domain/netbox-events';

/** Deliveries as NetBox 4.7.3 sent them to a test receiver (trimmed to the fields that matter). */
const REQUEST = '37cf5e2f-811d-46c9-a96b-18879d7cd448';
const vmDelivery = (over: Record<string, unknown> = {}, data: Record<string, unknown> = {}) => ({
  event: 'updated',
  timestamp: '2026-12-05T20:25:47.141222+00:00',
  object_type: 'virtualization.virtualmachine',
  data: {
    id: 7,
    name: 'vm1',
    status: { value: 'active', label: 'Active' },
    memory: 2048,
    custom_fields: { ferry_vmid: 4321, ferry_owner: 'ops' },
    ...data,
  },
  request: { id: REQUEST, path: '/api/virtualization/virtual-machines/7/', method: 'PATCH', GET: {}, user: 'ferry' },
  snapshots: { prechange: { memory: 1024 }, postchange: { memory: 2048 } },
  ...over,
});
const childDelivery = (objectType: string, event = 'updated') => ({
  event,
  timestamp: '2026-12-05T20:25:48.348536+00:00',
  object_type: objectType,
  data: { id: 3, name: 'scsi0', size: 20, virtual_machine: { id: 7, name: 'vm1', url: '/api/…/7/' } },
  request: { id: REQUEST, user: 'ferry' },
  snapshots: { prechange: null, postchange: null },
});

describe("parseNetboxDelivery (NetBox's default webhook body)", () => {
  it('reads a VM edit: the edit, and the VM facts the payload carries', () => {
    expect(parseNetboxDelivery(vmDelivery())).toEqual({
      kind: 'event',
      event: {
        edit: {
          model: 'virtualization.virtualmachine',
          objectId: 7,
          event: 'updated',
          at: '2026-12-05T20:25:47.141222+00:00',
          requestId: REQUEST,
        },
        vmNetboxId: 7,
        vm: { status: 'active', vmid: 4321 },
      },
    });
  });

  it("reads an interface's or a disk's edit as its VM's, without facts (the VM is read)", () => {
    for (const model of ['virtualization.vminterface', 'virtualization.virtualdisk'] as const) {
      expect(parseNetboxDelivery(childDelivery(model, 'deleted'))).toEqual({
        kind: 'event',
        event: {
          edit: { model, objectId: 3, event: 'deleted', at: '2026-12-05T20:25:48.348536+00:00', requestId: REQUEST },
          vmNetboxId: 7,
        },
      });
    }
  });

  it("does not follow ferry's own record of a change (only ferry_applied changed), and follows anything more", () => {
    const snapshots = (before: Record<string, unknown>, after: Record<string, unknown>) => ({
      snapshots: {
        prechange: { name: 'vm1', memory: 2048, custom_fields: { ferry_vmid: 4321, ...before } },
        postchange: { name: 'vm1', memory: 2048, custom_fields: { ferry_vmid: 4321, ...after } },
      },
    });
    const baseline = { version: 1, applied: { memory: '2048' }, accepted: {} };
    expect(parseNetboxDelivery(vmDelivery(snapshots({ ferry_applied: null }, { ferry_applied: baseline })))).toEqual({
      kind: 'not-followed',
      reason: "NetBox VM 7: only custom_fields.ferry_applied changed, ferry's own record of a change it made",
    });
    // A person's edit in the same request as a baseline write is an edit.
    const both = snapshots(
      { ferry_applied: null, ferry_owner: 'ops' },
      { ferry_applied: baseline, ferry_owner: 'dev' },
    );
    expect(parseNetboxDelivery(vmDelivery(both)).kind).toBe('event');
    // Without snapshots (a body template, a job) nothing can be told apart: followed.
    expect(parseNetboxDelivery(vmDelivery({ snapshots: { prechange: null, postchange: null } })).kind).toBe('event');
  });

  it('reads the NetBox 4.0–4.4 form: a bare `model` and `request_id`', () => {
    const old = {
      ...vmDelivery(),
      model: 'virtualmachine',
      request_id: 'abc-1',
      object_type: undefined,
      request: undefined,
    };
    const parsed = parseNetboxDelivery(old);
    expect(parsed).toMatchObject({
      kind: 'event',
      event: { edit: { model: 'virtualization.virtualmachine', requestId: 'abc-1' } },
    });
  });

  it('leaves out a request id NetBox did not have (an event from a background job)', () => {
    const parsed = parseNetboxDelivery(vmDelivery({ request: null }));
    expect(parsed.kind === 'event' && 'requestId' in parsed.event.edit).toBe(false);
  });

  it('reads a VM without custom fields as one without a VMID', () => {
    const parsed = parseNetboxDelivery(vmDelivery({}, { custom_fields: {} }));
    expect(parsed).toMatchObject({ kind: 'event', event: { vm: { status: 'active', vmid: undefined } } });
  });

  it('says what it does not follow: another model, a job event', () => {
    expect(parseNetboxDelivery(vmDelivery({ object_type: 'dcim.device' }))).toEqual({
      kind: 'not-followed',
      reason:
        'dcim.device is not a model ferry follows (virtualization.virtualmachine, virtualization.vminterface, virtualization.virtualdisk)',
    });
    expect(parseNetboxDelivery(vmDelivery({ event: 'job_started' }))).toEqual({
      kind: 'not-followed',
      reason: 'event "job_started" is not an object change (created, updated, deleted)',
    });
  });

  it('lists every problem of a body that is not NetBox’s payload, each with where', () => {
    const parsed = parseNetboxDelivery({ event: 'updated', timestamp: 'yesterday', data: { id: 'seven' } });
    expect(parsed.kind).toBe('invalid');
    const problems = parsed.kind === 'invalid' ? parsed.problems : [];
    expect(problems).toEqual([
      expect.stringMatching(/^timestamp: an ISO 8601 time/),
      expect.stringMatching(/^data\.id: /),
    ]);
    expect(parseNetboxDelivery([])).toEqual({ kind: 'invalid', problems: [expect.stringMatching(/^\(body\): /)] });
    expect(parseNetboxDelivery({ ...vmDelivery(), object_type: undefined })).toEqual({
      kind: 'invalid',
      problems: ['object_type: missing (neither object_type nor model is set)'],
    });
  });

  it('refuses a VM without a status, and an interface without its VM, naming the field under data', () => {
    expect(parseNetboxDelivery(vmDelivery({}, { status: null }))).toEqual({
      kind: 'invalid',
      problems: [expect.stringMatching(/^data\.status: /)],
    });
    const orphan = childDelivery('virtualization.vminterface');
    orphan.data.virtual_machine = undefined as never;
    expect(parseNetboxDelivery(orphan)).toEqual({
      kind: 'invalid',
      problems: [expect.stringMatching(/^data\.virtual_machine: /)],
    });
  });
});

describe('changeDecision (which edits reach changeVm)', () => {
  const event = (model: NetboxEvent['edit']['model'], kind: NetboxEvent['edit']['event'] = 'updated'): NetboxEvent => ({
    edit: { model, objectId: 3, event: kind, at: '2026-12-05T20:25:48Z', requestId: REQUEST },
    vmNetboxId: 7,
  });
  const built = { status: 'active', vmid: 4321 };

  it('signals-with-start change-<vmid> with the VM, its VMID and the trigger, and the edit as the signal', () => {
    expect(changeDecision(event('virtualization.virtualdisk'), built)).toEqual({
      kind: 'signal',
      workflowId: 'change-4321',
      start: {
        netboxId: 7,
        vmid: 4321,
        trigger: { source: 'netbox-webhook', requestId: REQUEST, at: '2026-12-05T20:25:48Z' },
      },
      edit: event('virtualization.virtualdisk').edit,
    });
    expect(changeVmWorkflowId(4321)).toBe('change-4321');
  });

  it('signals for every status but planned: staged, active, offline, failed…', () => {
    for (const status of ['staged', 'active', 'offline', 'failed', 'decommissioning', 'paused'])
      expect(changeDecision(event('virtualization.vminterface'), { status, vmid: 4321 }).kind).toBe('signal');
  });

  it('leaves a planned VM to provisioning, a deleted one to teardown, one without a VMID alone — saying why', () => {
    expect(changeDecision(event('virtualization.virtualmachine'), { status: 'planned', vmid: 4321 })).toEqual({
      kind: 'ignore',
      reason: 'NetBox VM 7 is planned: provisioning builds it (provisionVm), not changeVm',
    });
    expect(changeDecision(event('virtualization.virtualmachine', 'deleted'), built)).toEqual({
      kind: 'ignore',
      reason: 'NetBox VM 7 was deleted: teardown (teardownVm) owns that, not changeVm',
    });
    expect(changeDecision(event('virtualization.virtualdisk', 'deleted'), 'gone')).toEqual({
      kind: 'ignore',
      reason: 'NetBox VM 7 no longer exists: teardown (teardownVm) owns that, not changeVm',
    });
    for (const vmid of [undefined, null])
      expect(changeDecision(event('virtualization.vminterface'), { status: 'active', vmid })).toEqual({
        kind: 'ignore',
        reason: 'NetBox VM 7 has no ferry_vmid: not a VM ferry built',
      });
  });

  it('does not take a ferry_vmid that is not a VMID', () => {
    for (const vmid of ['4321', 99, 1_000_000_000, 43.5])
      expect(changeDecision(event('virtualization.virtualmachine'), { status: 'active', vmid })).toEqual({
        kind: 'ignore',
        reason: `NetBox VM 7 has ferry_vmid ${JSON.stringify(vmid)}, not a VMID (100–999999999)`,
      });
  });

  it('signals an interface or disk deleted from a VM that still exists (a NIC or disk removed in NetBox)', () => {
    expect(changeDecision(event('virtualization.vminterface', 'deleted'), built)).toMatchObject({
      kind: 'signal',
      edit: { model: 'virtualization.vminterface', event: 'deleted' },
    });
  });

  it('keeps the trigger free of a request id NetBox did not send', () => {
    const { requestId: _, ...edit } = event('virtualization.virtualmachine').edit;
    const decision = changeDecision({ edit, vmNetboxId: 7 }, built);
    expect(decision).toMatchObject({ kind: 'signal', start: { trigger: { source: 'netbox-webhook', at: edit.at } } });
    expect(decision.kind === 'signal' && 'requestId' in decision.start.trigger).toBe(false);
  });

  it('describes an edit in one line for the log', () => {
    expect(describeEdit(event('virtualization.virtualdisk').edit, 7)).toBe(
      `updated virtualdisk 3 of NetBox VM 7 (request ${REQUEST})`,
    );
    expect(describeEdit({ ...event('virtualization.virtualmachine').edit, objectId: 7 }, 7)).toBe(
      `updated virtualmachine 7 (request ${REQUEST})`,
    );
  });
});
