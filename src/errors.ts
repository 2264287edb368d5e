import { tlsProblem } from './tls-errors';

/**
 * Errors from outside systems, classified once so activities can turn them into the right Temporal
 * failure (activities/failures.ts). Every client (Proxmox, vSphere, NetBox, DNS) throws subclasses.
 */
export type ErrorCategory =
  /** Network trouble, timeouts, 5xx: try again with backoff. */
  | 'transient'
  /** The object is locked by another operation (PVE "VM N is locked", SDN lock): try again later. */
  | 'locked'
  /** Optimistic-concurrency loss (digest mismatch, stale If-Match): re-read and try again. */
  | 'conflict'
  /** The request is wrong (bad parameter, impossible state): retrying cannot help. */
  | 'invalid'
  /** Authentication or authorization refused: a person must fix credentials or roles. */
  | 'permission'
  /** The object does not exist. */
  | 'not-found'
  /** ferry refuses on purpose (a rule of the migration or of the config): never retried. */
  | 'policy';

const RETRYABLE: ReadonlySet<ErrorCategory> = new Set(['transient', 'locked', 'conflict']);

export interface FerryErrorOptions {
  cause?: unknown;
  /** Structured facts for the failure's details (never secrets). */
  details?: Record<string, unknown>;
  /** When the server said when to come back (e.g. Retry-After). */
  retryAfterMs?: number;
}

export class FerryError extends Error {
  readonly details?: Record<string, unknown>;
  readonly retryAfterMs?: number;

  constructor(
    message: string,
    readonly category: ErrorCategory,
    options: FerryErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.details = options.details;
    this.retryAfterMs = options.retryAfterMs;
  }

  /** Retryable by its category, unless something in its cause chain is final: a wrapper never makes a final error retryable. */
  get retryable(): boolean {
    return RETRYABLE.has(this.category) && !hasFinalCause(this.cause);
  }
}

/**
 * Whether an error, or anything in its `cause` chain, is final: a non-retryable FerryError, a Temporal
 * failure marked non-retryable, or a TLS refusal (a configuration matter everywhere). Wrappers ask this
 * so a TLS, authentication, permission or schema error stays non-retryable however often it is wrapped.
 */
export function hasFinalCause(err: unknown): boolean {
  for (
    let e: unknown = err, depth = 0;
    e && typeof e === 'object' && depth < 10;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    if (e instanceof FerryError && !RETRYABLE.has(e.category)) return true;
    if ((e as { nonRetryable?: unknown }).nonRetryable === true) return true;
    if (tlsProblem(e)) return true;
  }
  return false;
}

export function isRetryableCategory(category: ErrorCategory): boolean {
  return RETRYABLE.has(category);
}
