import { z } from 'zod';
import { ALWAYS } from './common';
import { ConfigError } from './config-error';

/** `host:port` (`[v6]:port` for IPv6) where ferry's webhook receiver listens. */
export interface ListenAddress {
  host: string;
  port: number;
}

const LISTEN = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(\d{1,5})$/;

/** Reads `127.0.0.1:8787` or `[::1]:8787`; undefined when it is not one. */
export function parseListenAddress(text: string): ListenAddress | undefined {
  const match = LISTEN.exec(text.trim());
  if (!match) return undefined;
  const port = Number(match[2]);
  if (port > 65535) return undefined;
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
}

export const listenAddress = z
  .string()
  .refine(
    (text) => parseListenAddress(text) !== undefined,
    'host:port, e.g. 127.0.0.1:8787 or [::1]:8787 (port 0–65535)',
  );

/**
 * NetBox's own event rule reports VM, interface and virtual-disk edits to ferry's receiver with a signed
 * webhook. `ferry netbox setup` creates the webhook and the rule in NetBox from these keys; `ferry
 * webhook` (or the worker, with `inWorker`) runs the receiver.
 */
export const netboxWebhookSection = z
  .object({
    /** The payload URL: ferry's receiver as NetBox reaches it (path `/netbox/webhook`). */
    url: z.url({ protocol: /^https?$/, error: 'an http(s) URL such as https://ferry.example.com:8787/netbox/webhook' }),
    /** Where the receiver listens. */
    listen: listenAddress.default('127.0.0.1:8787'),
    /**
     * NetBox signs each delivery with it (HMAC-SHA512); from FERRY_NETBOX_WEBHOOK_SECRET only. Needed where
     * it is used (`ferry netbox setup`, the receiver: see webhookSecret), so a worker without the receiver
     * starts without it.
     */
    secret: z
      .string()
      .min(16, 'at least 16 characters (e.g. `openssl rand -hex 32`): it is the key of the signature')
      .max(255, 'at most 255 characters (NetBox keeps no more)')
      .optional(),
    /** Run the receiver inside the worker process too (else: `ferry webhook`). */
    inWorker: z.boolean().default(false),
    /** The name of the webhook and of the event rule in NetBox (unique there); keep it stable. */
    name: z.string().min(1).max(150).default('ferry'),
    /** NetBox verifies the receiver's certificate (the webhook's `ssl_verification`). */
    validateCerts: z.boolean().default(true),
    /** CA file NetBox verifies the receiver with: a path on the NetBox host (the webhook's `ca_file_path`). */
    caFile: z.string().min(1).max(4096).optional(),
    /** The receiver serves HTTPS with this certificate and key (PEM files on ferry's host); plain HTTP without. */
    certFile: z.string().min(1).optional(),
    keyFile: z.string().min(1).optional(),
  })
  .strict()
  .superRefine((w, ctx) => {
    if (typeof w !== 'object' || w === null) return; // the section's type error says it
    if (w.validateCerts === false && w.caFile !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['caFile'],
        message: 'a CA file with validateCerts: false would not be used (NetBox refuses the pair)',
      });
    if (w.inWorker === true && w.secret === undefined)
      ctx.addIssue({ code: 'custom', path: ['secret'], message: 'the worker runs the receiver (inWorker)' });
    if ((w.certFile === undefined) !== (w.keyFile === undefined))
      ctx.addIssue({
        code: 'custom',
        path: [w.certFile === undefined ? 'certFile' : 'keyFile'],
        message: 'HTTPS needs both certFile and keyFile',
      });
  }, ALWAYS);

/** The webhook's secret, for what signs or checks with it; missing, a configuration error naming the variable. */
export function webhookSecret(webhook: { secret?: string | undefined }, who: string): string {
  if (webhook.secret) return webhook.secret;
  throw new ConfigError([
    `netbox.webhook.secret: missing: ${who} needs it; set FERRY_NETBOX_WEBHOOK_SECRET in its environment`,
  ]);
}
