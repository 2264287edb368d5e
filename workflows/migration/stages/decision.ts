import { condition } from '@temporalio/workflow';
import { workflowNow } from '../../clock';
import type { MigrationRun } from '../run-context';

/** Past the shutdown the workflow does not guess: after a failure it waits for a person to retry or roll back. */
export async function awaitDecision(run: MigrationRun, err: unknown): Promise<'retry' | 'rollback'> {
  run.failed(err);
  run.enter('awaiting-decision');
  const { gate } = run;
  gate.openDecision();
  const started = workflowNow();
  await condition(() => gate.hasDecision);
  const { decision } = gate.takeDecision()!;
  run.waited({ for: `decision after failure (${decision})`, waitedMs: workflowNow() - started });
  if (decision === 'retry') run.status.error = undefined;
  return decision;
}
