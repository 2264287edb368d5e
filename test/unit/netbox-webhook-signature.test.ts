import { checkWebhookSignature, webhookSignature } from '../../src/netbox/webhook-signature';

describe("NetBox's webhook signature (X-Hook-Signature)", () => {
  const secret = 'ferry-test-secret-éé';
  const body = Buffer.from(
    '{"event": "updated", "timestamp": "2026-12-05T20:25:47.141222+00:00", "object_type": "virtualization.virtualmachine", "data": {"id": 1}}',
  );
  // Computed by NetBox 4.7.3's own extras.webhooks.generate_signature (Python hmac, SHA-512, UTF-8 key) over the body above.
  const netboxSigned =
    '05800493c4899f2efe9f6505cb25ec1d779ed5c06947bb5db7e416e66b436334694841f45eef4cd8f8168f8654a29de23eb0edc888aaf67272dae99789b64b01';

  it('is the hex HMAC-SHA512 NetBox computes, with a non-ASCII secret as UTF-8', () => {
    expect(webhookSignature(body, secret)).toBe(netboxSigned);
  });

  it("accepts NetBox's signature over the raw body, in either case of hex", () => {
    expect(checkWebhookSignature(body, netboxSigned, secret)).toEqual({ ok: true });
    expect(checkWebhookSignature(body, netboxSigned.toUpperCase(), secret)).toEqual({ ok: true });
  });

  it('refuses an unsigned call as missing', () => {
    for (const header of [undefined, '']) {
      expect(checkWebhookSignature(body, header, secret)).toMatchObject({ ok: false, problem: 'missing' });
    }
  });

  it('refuses another secret, and a body changed by one byte, as forged', () => {
    expect(checkWebhookSignature(body, webhookSignature(body, 'another-secret-entirely'), secret)).toMatchObject({
      ok: false,
      problem: 'forged',
    });
    const altered = Buffer.from(body.toString().replace('"id": 1', '"id": 2'));
    expect(checkWebhookSignature(altered, netboxSigned, secret)).toMatchObject({ ok: false, problem: 'forged' });
  });

  it('refuses what is not a SHA-512 hex digest, or two headers, as malformed', () => {
    const sha256Length = netboxSigned.slice(0, 64);
    expect(checkWebhookSignature(body, sha256Length, secret)).toEqual({
      ok: false,
      problem: 'malformed',
      detail: 'X-Hook-Signature is not a hex HMAC-SHA512 (128 hex digits; got 64 characters)',
    });
    expect(checkWebhookSignature(body, `sha512=${netboxSigned}`, secret)).toMatchObject({ problem: 'malformed' });
    expect(checkWebhookSignature(body, [netboxSigned, netboxSigned], secret)).toMatchObject({ problem: 'malformed' });
  });
});
