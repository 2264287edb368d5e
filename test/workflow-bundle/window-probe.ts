import { workflowInfo } from '@temporalio/workflow';
import { cutoverSchedule, type CutoverWindow } from '../../src/domain/migration';
import { waitForCutoverStart } from '../../workflows/migration/cutover-start';

/**
 * For each `notBefore` in turn, waits as an approved cutover does (workflows/migration/cutover-start)
 * and notes the workflow time it woke at, and each start it was told to wait for.
 */
export async function cutoverWindowProbe(input: {
  window: CutoverWindow;
  notBefore: number[];
}): Promise<{ woke: number[]; told: number[]; startedAt: number }> {
  const startedAt = workflowInfo().runStartTime.getTime();
  const woke: number[] = [];
  const told: number[] = [];
  for (const notBefore of input.notBefore) {
    await waitForCutoverStart(
      () => cutoverSchedule(input.window, notBefore, Date.now()),
      (next) => told.push(next.startsAt),
    );
    woke.push(Date.now());
  }
  return { woke, told, startedAt };
}
