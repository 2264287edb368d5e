import { condition } from '@temporalio/workflow';
import type { ChangeRun } from '../run-context';

/**
 * A burst of NetBox edits becomes one plan: the run waits until none has come for `change.debounce`
 * (a durable timer, started again by each edit). A run started without an edit (`ferry apply`) plans at once.
 */
export async function debounce(run: ChangeRun): Promise<void> {
  if (run.editCount === 0) return;
  await run.waitFor(`NetBox edits to stop (${Math.round(run.settings.debounceMs / 1000)} s without one)`, async () => {
    for (;;) {
      const seen = run.editCount;
      if (!(await condition(() => run.editCount > seen, run.settings.debounceMs))) return;
    }
  });
}
