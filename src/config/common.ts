import { z } from 'zod';

/**
 * For a refinement over several keys: run it even when some key has the wrong type, so validation lists
 * every problem in one pass instead of hiding the cross-key ones until the types are fixed. The
 * refinement then sees the values as given (any type) and must check before it uses them.
 */
export const ALWAYS = { when: () => true } as const;

/** TLS settings every HTTPS endpoint carries: verification is on unless the config turns it off. */
export const tlsFields = {
  /** Verify the server certificate. Explicit per endpoint; there is no global insecure switch. */
  validateCerts: z.boolean().default(true),
  /** PEM file with the CA (or self-signed certificate) to trust for this endpoint. */
  caFile: z.string().min(1).optional(),
};

export const hostName = z
  .string()
  .min(1)
  .regex(/^[A-Za-z0-9.:[\]_-]+$/, 'a host name or IP address, without scheme or path');

/** An absolute DNS name, with or without the trailing dot. */
export const dnsName = z
  .string()
  .regex(
    /^(?=.{1,254}$)([A-Za-z0-9_-]{1,63}\.)*[A-Za-z0-9_-]{1,63}\.?$/,
    'a DNS name such as lab.example.com or 2.0.192.in-addr.arpa',
  );

export const port = z.number().int().min(1).max(65535);

/** Durations as Temporal writes them (`30s`, `5m`, `2h`, `1d`) or milliseconds. */
export const duration = z.union([
  z.number().int().nonnegative(),
  z.string().regex(/^\d+(\.\d+)?\s*(ms|s|m|h|d)$/, 'a duration such as 500ms, 30s, 5m, 2h or 1d'),
]);

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A validated duration (see `duration`) in milliseconds. */
export function durationToMs(value: number | string): number {
  if (typeof value === 'number') return value;
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/.exec(value);
  if (!match) throw new RangeError(`not a duration: "${value}"`);
  return Math.round(Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS]);
}
