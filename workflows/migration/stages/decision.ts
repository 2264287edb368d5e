import { condition } from '@temporalio/workflow';
import type { MigrationRun } from '../run-context';

/** Past the shutdown the workflow does not guess: after a failure it waits for a person to retry or roll back. */
export async function awaitDecision(run: MigrationRun, err: unknown): Promise<'retry' | 'rollback'> {
  run.failed(err);
  run.enter('awaiting-decision');
  const { gate } = run;
  gate.openDecision();
  await run.waitFor('a decision after the failure: retry or rollback', () => condition(() => gate.hasDecision));
  const { decision } = gate.takeDecision()!;
  if (decision === 'retry') run.status.error = undefined;
  return decision;
}
