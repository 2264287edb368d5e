import type { MigrateVmResult } from '../../../src/domain/migration';
import { workflowNow } from '../../clock';
import { waitForCutoverStart } from '../cutover-start';
import type { MigrationRun } from '../run-context';

/**
 * An approved cutover starts only inside the wave's cutover window and not before its `approve --at`
 * time: until then it sleeps on a durable timer (`ferry cancel` ends the wait). Without either it
 * goes on at once, with no timer.
 */
export async function awaitCutoverWindow(run: MigrationRun): Promise<MigrateVmResult | undefined> {
  const started = workflowNow();
  let waited = false;
  const schedule = await waitForCutoverStart(
    () => run.schedule(),
    (next) => {
      if (!waited) run.enter('awaiting-window');
      waited = true;
      run.status.schedule = next;
    },
  );
  if (schedule) run.status.schedule = schedule;
  if (waited) run.waited({ for: 'cutover window', waitedMs: workflowNow() - started });
  return undefined;
}
