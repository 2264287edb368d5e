import { waitForCutoverStart } from '../cutover-start';
import type { MigrationRun } from '../run-context';

/**
 * An approved cutover starts only inside the wave's cutover window and not before its `approve --at`
 * time: until then it sleeps on a durable timer (`ferry cancel` ends the wait), in stage
 * `awaiting-window`. Without either it goes on at once, with no timer and no stage.
 */
export async function awaitCutoverWindow(run: MigrationRun): Promise<undefined> {
  let endWait: (() => void) | undefined;
  const schedule = await waitForCutoverStart(
    () => run.schedule(),
    (next) => {
      if (!endWait) {
        run.enter('awaiting-window');
        endWait = run.beginWait('cutover window');
      }
      run.status.schedule = next;
    },
  ).finally(() => endWait?.());
  if (schedule) run.status.schedule = schedule;
  return undefined;
}
