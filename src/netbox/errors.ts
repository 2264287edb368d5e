import { FerryError, type ErrorCategory, type FerryErrorOptions } from '../errors';
import { tlsProblem } from '../tls-errors';

/** A NetBox request that failed; `status` is the HTTP status when NetBox answered. */
export class NetboxError extends FerryError {
  readonly status?: number;

  constructor(message: string, category: ErrorCategory, options: FerryErrorOptions & { status?: number } = {}) {
    super(message, category, { ...options, details: { ...options.details, status: options.status } });
    this.status = options.status;
  }
}

/** The object changed since it was read: NetBox refused an `If-Match` that no longer holds (HTTP 412). */
export class NetboxStaleError extends NetboxError {
  constructor(
    message: string,
    /** The object's current ETag, as NetBox sent it with the refusal. */
    readonly currentEtag?: string,
  ) {
    super(message, 'conflict', { status: 412, details: { currentEtag } });
  }
}

/** TLS verification failed: a configuration matter (CA file, validateCerts), never retried. */
export class NetboxTlsError extends NetboxError {}

/** An error that never got an HTTP answer: TLS refusals are configuration, the rest is transient. */
export function networkError(what: string, err: unknown): NetboxError {
  const code = (err as { code?: string }).code ?? (err as { cause?: { code?: string } }).cause?.code;
  const message = err instanceof Error ? err.message : String(err);
  const tls = tlsProblem(err);
  if (tls) {
    return new NetboxTlsError(
      `${what}: TLS verification failed (${tls.code}); trust the server's CA with netbox.caFile (NETBOX_CA_FILE) or, for a lab, set netbox.validateCerts: false`,
      'invalid',
      { cause: err },
    );
  }
  return new NetboxError(`${what}: NetBox is unreachable (${code ?? message})`, 'transient', { cause: err });
}

/** DRF's error bodies (`{"detail": …}` or `{"field": ["msg"]}`) as one line. */
export function describeBody(body: unknown): string {
  if (body === null || body === undefined || body === '') return '';
  if (typeof body === 'string') return body.slice(0, 300);
  if (Array.isArray(body)) return body.map(describeBody).filter(Boolean).join('; ');
  if (typeof body === 'object') {
    const record = body as Record<string, unknown>;
    if (typeof record.detail === 'string') return record.detail;
    return Object.entries(record)
      .map(
        ([field, value]) =>
          `${field}: ${Array.isArray(value) ? value.map(describeBody).join(' ') : describeBody(value)}`,
      )
      .join('; ');
  }
  return String(body);
}

/** Classifies an HTTP error answer from NetBox. */
export function httpError(
  what: string,
  status: number,
  body: unknown,
  retryAfterMs?: number,
  etag?: string,
): NetboxError {
  const said = describeBody(body);
  const msg = `${what}: HTTP ${status}${said ? `: ${said}` : ''}`;
  if (status === 412) return new NetboxStaleError(`${msg} (the object changed since it was read; read it again)`, etag);
  if (status === 401 || status === 403) {
    return new NetboxError(
      `${msg} (check NETBOX_TOKEN: it must be valid, enabled, not expired and allowed to do this)`,
      'permission',
      { status },
    );
  }
  if (status === 404) return new NetboxError(msg, 'not-found', { status });
  if (status === 409) return new NetboxError(msg, 'conflict', { status });
  if (status === 429 || status >= 500) return new NetboxError(msg, 'transient', { status, retryAfterMs });
  return new NetboxError(msg, 'invalid', { status });
}
