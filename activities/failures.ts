import { ApplicationFailure } from '@temporalio/activity';
import { FerryError } from '../src/errors';
import { tlsProblem } from '../src/tls-errors';
import { wrapEach } from './wrap-each';

/**
 * The one place where outside errors become Temporal failures: transient, locked and conflict errors
 * are retried with the activity's backoff; invalid input, permission and policy refusals fail at once
 * as non-retryable, with the message a person needs. The failure type is the error class name, so
 * workflows and `retry.nonRetryableErrorTypes` can tell them apart.
 */
export function toActivityFailure(err: unknown): unknown {
  if (err instanceof ApplicationFailure) return err;
  if (!(err instanceof FerryError)) {
    // A TLS refusal from a library that does not classify it (Temporal's client, undici) is configuration: never retried.
    const tls = tlsProblem(err);
    if (tls && err instanceof Error) {
      return ApplicationFailure.create({
        type: 'TlsError',
        message: `TLS: ${tls.problem} (${tls.code}): ${err.message}`,
        nonRetryable: true,
        cause: err,
      });
    }
    return err; // unknown errors: Temporal retries them by default
  }
  return ApplicationFailure.create({
    type: err.name,
    message: err.message,
    nonRetryable: !err.retryable,
    details: [{ category: err.category, ...(err.details ?? {}) }],
    nextRetryDelay: err.retryAfterMs,
    cause: err.cause instanceof Error ? err.cause : undefined,
  });
}

/** Wraps every activity so errors leave it through `toActivityFailure`. */
export function withFailureMapping<T extends Record<string, (...args: never[]) => Promise<unknown>>>(activities: T): T {
  return wrapEach(activities, async (call) => {
    try {
      return await call();
    } catch (err) {
      throw toActivityFailure(err);
    }
  });
}
