import { condition } from '@temporalio/workflow';
import type { ChangeRun } from '../run-context';

/**
 * A burst of NetBox edits becomes one plan: the run waits until none has come for `change.debounce`
 * (a durable timer, started again by each edit). A run started or asked again by `ferry apply` (no
 * NetBox edit in the burst) plans at once: a person asked now.
 */
export async function debounce(run: ChangeRun, editsBefore: number): Promise<void> {
  const burst = run.status.edits.slice(editsBefore);
  if (!burst.some((edit) => edit.from !== 'ferry-apply')) return;
  run.enter('debounce');
  await run.waitFor(`NetBox edits to stop (${Math.round(run.settings.debounceMs / 1000)} s without one)`, async () => {
    for (;;) {
      const seen = run.editCount;
      if (!(await condition(() => run.editCount > seen, run.settings.debounceMs))) return;
    }
  });
}
