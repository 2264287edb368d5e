import { z } from 'zod';
import { webhookSecret, type NetboxWebhookConfig } from '../config';
import { NETBOX_EDIT_MODELS } from '../domain/change-vm';
import type { NetboxClient, Outcome } from './client';

const WEBHOOKS = 'api/extras/webhooks/';
const EVENT_RULES = 'api/extras/event-rules/';
/** NetBox's event types for object changes (core/events.py), which its webhook reports as created/updated/deleted. */
export const OBJECT_EVENT_TYPES = ['object_created', 'object_updated', 'object_deleted'] as const;

const webhookSchema = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  payload_url: z.string(),
  http_method: z.string(),
  http_content_type: z.string(),
  additional_headers: z.string().nullish(),
  body_template: z.string().nullish(),
  secret: z.string().nullish(),
  ssl_verification: z.boolean(),
  ca_file_path: z.string().nullish(),
});

const eventRuleSchema = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  enabled: z.boolean(),
  object_types: z.array(z.string()),
  event_types: z.array(z.string()),
  conditions: z.unknown().nullish(),
  action_type: z.union([z.string(), z.looseObject({ value: z.string() })]),
  action_object_type: z.string().nullish(),
  action_object_id: z.number().int().nullish(),
});

/** A NetBox object by its unique name, with the fields ferry sets (API field names). */
type WantedObject = Record<string, unknown> & { name: string };

/** What `ferry netbox setup` did to one of the two objects, and which fields an update changed. */
export interface WebhookSetupResult {
  kind: 'webhook' | 'event-rule';
  name: string;
  outcome: Outcome;
  /** Field names (never values: one is the secret). */
  changed?: string[];
}

/**
 * The webhook as ferry wants it: NetBox's default JSON body (the receiver reads it), POSTed to the
 * receiver, signed with the secret, TLS verified unless the config says otherwise.
 */
export function wantedWebhook(config: NetboxWebhookConfig): WantedObject {
  return {
    name: config.name,
    payload_url: config.url,
    http_method: 'POST',
    http_content_type: 'application/json',
    additional_headers: '',
    body_template: '',
    secret: webhookSecret(config, '`ferry netbox setup`'),
    ssl_verification: config.validateCerts,
    ca_file_path: config.caFile ?? null,
  };
}

/** The event rule: every create, update and delete of a VM, an interface or a virtual disk, to the webhook. */
export function wantedEventRule(name: string, webhookId: number): WantedObject {
  return {
    name,
    enabled: true,
    object_types: [...NETBOX_EDIT_MODELS],
    event_types: [...OBJECT_EVENT_TYPES],
    conditions: null,
    action_type: 'webhook',
    action_object_type: 'extras.webhook',
    action_object_id: webhookId,
  };
}

/** Fields of `existing` that differ from `wanted` (lists compared as sets, empty text as null). */
export function differingFields(existing: Record<string, unknown>, wanted: Record<string, unknown>): string[] {
  return Object.keys(wanted).filter((key) => !sameValue(existing[key], wanted[key]));
}

function sameValue(a: unknown, b: unknown): boolean {
  const norm = (v: unknown) =>
    v === '' || v === undefined
      ? null
      : typeof v === 'object' && v !== null && 'value' in v
        ? (v as { value: unknown }).value
        : v;
  const [x, y] = [norm(a), norm(b)];
  if (Array.isArray(x) && Array.isArray(y))
    return x.length === y.length && [...x].sort().join('\n') === [...y].sort().join('\n');
  return JSON.stringify(x) === JSON.stringify(y);
}

/**
 * Creates ferry's webhook and event rule in NetBox, or brings them back to what the config says (a
 * changed URL or secret is updated in place, by name). Run again, it changes nothing.
 */
export async function ensureNetboxWebhook(
  client: NetboxClient,
  config: NetboxWebhookConfig,
): Promise<WebhookSetupResult[]> {
  const webhook = await ensureObject(client, WEBHOOKS, webhookSchema, wantedWebhook(config));
  const rule = await ensureObject(client, EVENT_RULES, eventRuleSchema, wantedEventRule(config.name, webhook.id));
  return [
    { kind: 'webhook', name: config.name, outcome: webhook.outcome, ...changed(webhook.changed) },
    { kind: 'event-rule', name: config.name, outcome: rule.outcome, ...changed(rule.changed) },
  ];
}

const changed = (fields: string[]) => (fields.length > 0 ? { changed: fields } : {});

async function ensureObject<T extends { id: number }>(
  client: NetboxClient,
  path: string,
  schema: z.ZodType<T>,
  wanted: WantedObject,
): Promise<{ id: number; outcome: Outcome; changed: string[] }> {
  const [existing] = await client.http.list(path, { name: wanted.name }, schema);
  if (!existing) {
    const { data } = await client.http.request('POST', path, { schema, body: wanted });
    return { id: data.id, outcome: 'created', changed: [] };
  }
  const fields = differingFields(existing, wanted);
  if (fields.length === 0) return { id: existing.id, outcome: 'unchanged', changed: [] };
  const body = Object.fromEntries(fields.map((f) => [f, wanted[f]]));
  await client.http.request('PATCH', `${path}${existing.id}/`, { schema, body });
  return { id: existing.id, outcome: 'updated', changed: fields };
}
