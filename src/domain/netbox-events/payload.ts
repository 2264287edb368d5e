import { z } from 'zod';
import {
  NETBOX_EDIT_EVENTS,
  NETBOX_EDIT_MODELS,
  type NetboxEdit,
  type NetboxEditEvent,
  type NetboxEditModel,
} from '../change-vm';

/**
 * NetBox's default webhook body (no body template): `event`, `timestamp`, `object_type`, `data` (the
 * object as the REST API serialises it), `request` and `snapshots` (extras/webhooks.py, send_webhook).
 * NetBox before 4.5 sent `model` (the bare model name) instead of `object_type`, and before 4.7
 * `request_id` instead of `request.id`: both are read.
 */
const envelopeSchema = z.object({
  event: z.string().min(1),
  timestamp: z.iso.datetime({ offset: true, error: 'an ISO 8601 time, as NetBox writes it' }),
  object_type: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  data: z.looseObject({ id: z.number().int().positive() }),
  request: z.looseObject({ id: z.string().nullish() }).nullish(),
  request_id: z.string().nullish(),
  snapshots: z
    .looseObject({
      prechange: z.record(z.string(), z.unknown()).nullish(),
      postchange: z.record(z.string(), z.unknown()).nullish(),
    })
    .nullish(),
});

/**
 * What ferry itself writes on a VM after a change (src/domain/change: the baseline it applied) and what
 * NetBox updates with any write. An update that changed nothing else is ferry's own record of a run, not
 * an edit: following it would start one more changeVm run per change, with nothing to do.
 */
const BOOKKEEPING_FIELDS = ['last_updated'];
const BOOKKEEPING_CUSTOM_FIELDS = ['ferry_applied'];

/** The fields an update changed, from NetBox's snapshots (`custom_fields.x` per custom field); undefined without both snapshots. */
export function changedFields(snapshots: z.infer<typeof envelopeSchema>['snapshots']): string[] | undefined {
  const before = snapshots?.prechange;
  const after = snapshots?.postchange;
  if (!before || !after) return undefined;
  const differs = (a: unknown, b: unknown) => JSON.stringify(a) !== JSON.stringify(b);
  const changed: string[] = [];
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (key !== 'custom_fields') {
      if (differs(before[key], after[key])) changed.push(key);
      continue;
    }
    const cfBefore = (before.custom_fields ?? {}) as Record<string, unknown>;
    const cfAfter = (after.custom_fields ?? {}) as Record<string, unknown>;
    for (const name of new Set([...Object.keys(cfBefore), ...Object.keys(cfAfter)]))
      if (differs(cfBefore[name], cfAfter[name])) changed.push(`custom_fields.${name}`);
  }
  return changed;
}

function onlyBookkeeping(changed: readonly string[]): boolean {
  const ours = [...BOOKKEEPING_FIELDS, ...BOOKKEEPING_CUSTOM_FIELDS.map((f) => `custom_fields.${f}`)];
  return changed.some((f) => f !== 'last_updated') && changed.every((f) => ours.includes(f));
}

/** A VM's `data`: its status and its custom fields (ferry_vmid among them). */
const vmDataSchema = z.looseObject({
  status: z.looseObject({ value: z.string().min(1) }),
  custom_fields: z.record(z.string(), z.unknown()).nullish(),
});

/** An interface's or a virtual disk's `data`: the VM it belongs to. */
const childDataSchema = z.looseObject({
  virtual_machine: z.looseObject({ id: z.number().int().positive() }),
});

/** What the payload says about the VM, when the edited object is the VM itself. */
export interface VmFacts {
  status: string;
  /** `ferry_vmid` as NetBox sent it (validated by the decision, which says why one is not a VMID). */
  vmid: unknown;
}

/** A NetBox object change ferry follows: the edit, and the VM it concerns. */
export interface NetboxEvent {
  edit: NetboxEdit;
  /** The NetBox VM: the object itself, or the VM an interface or a disk belongs to. */
  vmNetboxId: number;
  /** The VM's facts from the payload (a VM event); absent for an interface or a disk (read the VM). */
  vm?: VmFacts;
}

export type ParsedDelivery =
  | { kind: 'event'; event: NetboxEvent }
  /** A well-formed delivery of something ferry does not follow (another model, a job event). */
  | { kind: 'not-followed'; reason: string }
  /** The body is not NetBox's webhook payload: each problem names where. */
  | { kind: 'invalid'; problems: string[] };

function problemsOf(error: z.ZodError, prefix = ''): string[] {
  return error.issues.map(
    (i) => `${[prefix, ...i.path.map(String)].filter(Boolean).join('.') || '(body)'}: ${i.message}`,
  );
}

/** `virtualization.virtualmachine` from `object_type`, or from a pre-4.5 bare `model`. */
function objectTypeOf(envelope: z.infer<typeof envelopeSchema>): string | undefined {
  if (envelope.object_type) return envelope.object_type.toLowerCase();
  if (envelope.model)
    return envelope.model.includes('.')
      ? envelope.model.toLowerCase()
      : `virtualization.${envelope.model.toLowerCase()}`;
  return undefined;
}

/**
 * Reads a NetBox webhook body (already parsed from JSON). A body that is not NetBox's payload is
 * `invalid` with every problem; a change to a model or an event ferry does not follow is `not-followed`.
 */
export function parseNetboxDelivery(body: unknown): ParsedDelivery {
  const envelope = envelopeSchema.safeParse(body);
  if (!envelope.success) return { kind: 'invalid', problems: problemsOf(envelope.error) };
  const e = envelope.data;
  const objectType = objectTypeOf(e);
  if (!objectType)
    return { kind: 'invalid', problems: ['object_type: missing (neither object_type nor model is set)'] };
  if (!(NETBOX_EDIT_MODELS as readonly string[]).includes(objectType))
    return {
      kind: 'not-followed',
      reason: `${objectType} is not a model ferry follows (${NETBOX_EDIT_MODELS.join(', ')})`,
    };
  if (!(NETBOX_EDIT_EVENTS as readonly string[]).includes(e.event))
    return {
      kind: 'not-followed',
      reason: `event "${e.event}" is not an object change (${NETBOX_EDIT_EVENTS.join(', ')})`,
    };
  const requestId = e.request?.id ?? e.request_id ?? undefined;
  const edit: NetboxEdit = {
    model: objectType as NetboxEditModel,
    objectId: e.data.id,
    event: e.event as NetboxEditEvent,
    at: e.timestamp,
    ...(requestId ? { requestId } : {}),
  };
  if (edit.model === 'virtualization.virtualmachine') {
    const vm = vmDataSchema.safeParse(e.data);
    if (!vm.success) return { kind: 'invalid', problems: problemsOf(vm.error, 'data') };
    const changed = edit.event === 'updated' ? changedFields(e.snapshots) : undefined;
    if (changed && onlyBookkeeping(changed))
      return {
        kind: 'not-followed',
        reason: `NetBox VM ${e.data.id}: only ${changed.filter((f) => f !== 'last_updated').join(', ')} changed, ferry's own record of a change it made`,
      };
    const facts = { status: vm.data.status.value, vmid: vm.data.custom_fields?.ferry_vmid };
    return { kind: 'event', event: { edit, vmNetboxId: e.data.id, vm: facts } };
  }
  const child = childDataSchema.safeParse(e.data);
  if (!child.success) return { kind: 'invalid', problems: problemsOf(child.error, 'data') };
  return { kind: 'event', event: { edit, vmNetboxId: child.data.virtual_machine.id } };
}
