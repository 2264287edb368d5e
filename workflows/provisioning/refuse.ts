import { ApplicationFailure } from '@temporalio/workflow';

/** A refusal that retrying cannot change: the workflow fails at once with the reason. */
export function refuse(type: string, message: string): never {
  throw ApplicationFailure.create({ type, message, nonRetryable: true });
}
