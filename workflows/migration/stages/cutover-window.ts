import { sleep } from '@temporalio/workflow';
import type { MigrateVmResult } from '../../../src/domain/migration';
import { workflowNow } from '../../clock';
import type { MigrationRun } from '../run-context';

/**
 * An approved cutover starts only inside the wave's cutover window and not before its `approve --at`
 * time: until then it sleeps on a durable timer (`ferry cancel` ends the wait). Without either it
 * goes on at once, with no timer.
 */
export async function awaitCutoverWindow(run: MigrationRun): Promise<MigrateVmResult | undefined> {
  let schedule = run.schedule();
  if (!schedule || schedule.startsAt <= workflowNow()) return undefined;
  run.enter('awaiting-window');
  const started = workflowNow();
  while (schedule && schedule.startsAt > workflowNow()) {
    run.status.schedule = schedule;
    await sleep(schedule.startsAt - workflowNow());
    // Timers fire at their instant; asking again also covers a window that has moved meanwhile.
    schedule = run.schedule();
  }
  run.status.schedule = schedule;
  run.waited({ for: 'cutover window', waitedMs: workflowNow() - started });
  return undefined;
}
