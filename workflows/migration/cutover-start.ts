import { sleep } from '@temporalio/workflow';
import type { CutoverSchedule } from '../../src/domain/migration';
import { workflowNow } from '../clock';

/**
 * Sleeps on durable timers until `schedule()` says the cutover may start (asked again after each
 * timer: a window's next opening is computed afresh). Returns the schedule it starts under; no timer
 * when it may start at once.
 */
export async function waitForCutoverStart(
  schedule: () => CutoverSchedule | undefined,
  onWait: (next: CutoverSchedule) => void = () => undefined,
): Promise<CutoverSchedule | undefined> {
  let next = schedule();
  while (next && next.startsAt > workflowNow()) {
    onWait(next);
    await sleep(next.startsAt - workflowNow(), { summary: 'until the cutover may start (window, approve --at)' });
    next = schedule();
  }
  return next;
}
