import { ApplicationFailure } from '@temporalio/workflow';
import { workflowNow } from '../../clock';
import type { MigrationRun } from '../run-context';

export const CANCELLED_IN_CUTOVER = 'CancelledInCutover';

/**
 * A point inside the cutover where it may stop without being cut in half (the guest is down, or its
 * disks are in but not started): a cancel that came during the cutover is taken here, once, as a
 * failure, so the run waits for a person to retry or roll back.
 */
export function atSafePoint(run: MigrationRun): void {
  const cancel = run.cancellation;
  if (!cancel || cancel.effect !== 'at-safe-point' || cancel.safePointAt !== undefined) return;
  cancel.safePointAt = workflowNow();
  throw ApplicationFailure.nonRetryable(
    `cancelled by ${cancel.by} (${cancel.reason}) during the cutover, after ${run.status.stage}: the VM is off on VMware; retry to finish the cutover or roll back`,
    CANCELLED_IN_CUTOVER,
  );
}
