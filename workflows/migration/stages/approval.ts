import { ApplicationFailure, condition } from '@temporalio/workflow';
import type { MigrateVmResult } from '../../../src/domain/migration';
import { workflowNow } from '../../clock';
import type { MigrationRun } from '../run-context';

/** A person approves or rejects the cutover (or the deadline passes); nothing irreversible happens before. */
export async function awaitApproval(run: MigrationRun): Promise<MigrateVmResult | undefined> {
  run.enter('awaiting-approval');
  run.record({ kind: 'await-approval', vm: run.vm.assessment.pveName });
  const { gate } = run;
  const started = workflowNow();
  const deadline = run.settings.cutover.approvalDeadlineMs;
  const decided =
    deadline === undefined
      ? (await condition(() => gate.decided), true)
      : await condition(() => gate.decided, deadline);
  // A `ferry place` under way finishes first: the cutover runs on the shell it builds.
  await condition(() => !run.placing);
  gate.closeApproval();
  if (run.placeFailure) throw ApplicationFailure.nonRetryable(run.placeFailure, 'PlacementMoveFailed');
  run.waited({ for: 'cutover approval', waitedMs: workflowNow() - started });
  if (!decided) return run.finish('approval-expired', 'approval-expired');
  if (gate.rejection) {
    run.status.rejection = gate.rejection;
    return run.finish('rejected', 'rejected');
  }
  run.status.approval = gate.approval;
  return undefined;
}
