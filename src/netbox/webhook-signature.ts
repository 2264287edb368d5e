import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header NetBox signs a webhook's body in (extras/webhooks.py: `X-Hook-Signature`). */
export const SIGNATURE_HEADER = 'x-hook-signature';

/** NetBox's signature of a body: the hex HMAC-SHA512 of the raw bytes, keyed with the UTF-8 secret. */
export function webhookSignature(body: Uint8Array, secret: string): string {
  return createHmac('sha512', Buffer.from(secret, 'utf8')).update(body).digest('hex');
}

export type SignatureCheck =
  | { ok: true }
  /** `missing`: no signature (unsigned call); `malformed`: not 128 hex digits; `forged`: does not match. */
  | { ok: false; problem: 'missing' | 'malformed' | 'forged'; detail: string };

/**
 * Checks NetBox's `X-Hook-Signature` over the raw body as received (before any parsing, which would
 * not give back the same bytes). The comparison takes the same time wherever the digests differ.
 */
export function checkWebhookSignature(
  body: Uint8Array,
  header: string | readonly string[] | undefined,
  secret: string,
): SignatureCheck {
  if (header === undefined || header === '')
    return { ok: false, problem: 'missing', detail: 'no X-Hook-Signature header: the call is not signed' };
  if (typeof header !== 'string')
    return { ok: false, problem: 'malformed', detail: 'X-Hook-Signature was sent more than once' };
  const given = header.trim().toLowerCase();
  if (!/^[0-9a-f]{128}$/.test(given))
    return {
      ok: false,
      problem: 'malformed',
      detail: `X-Hook-Signature is not a hex HMAC-SHA512 (128 hex digits; got ${given.length} characters)`,
    };
  const expected = Buffer.from(webhookSignature(body, secret), 'hex');
  if (!timingSafeEqual(Buffer.from(given, 'hex'), expected))
    return {
      ok: false,
      problem: 'forged',
      detail: 'X-Hook-Signature does not match the body: signed with another secret, or the body was altered',
    };
  return { ok: true };
}
