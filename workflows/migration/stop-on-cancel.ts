import { CancellationScope, condition, isCancellation } from '@temporalio/workflow';
import type { MigrateVmResult } from '../../src/domain/migration';
import type { MigrationRun } from './run-context';
import { endCancelled } from './stages/cancelled';

/**
 * Runs a step before the shutdown so that `ferry cancel` stops it where it is: its scope is cancelled,
 * which cancels its timers, waits and activities (a storage vMotion's activity asks vCenter to cancel
 * the task and ends once the task has), and the run ends `cancelled`.
 */
export async function stopOnCancel(
  run: MigrationRun,
  go: () => Promise<MigrateVmResult | undefined>,
): Promise<MigrateVmResult | undefined> {
  if (run.cancellation) return endCancelled(run);
  const scope = new CancellationScope();
  // Left pending when the step ends first: a condition is only a predicate the workflow re-checks.
  void condition(() => run.cancellation !== undefined).then(() => scope.cancel());
  try {
    return await scope.run(go);
  } catch (err) {
    if (run.cancellation && isCancellation(err)) return endCancelled(run);
    throw err;
  }
}
