import { condition } from '@temporalio/workflow';
import type { MigrateVmResult } from '../../../src/domain/migration';
import type { MigrationRun } from '../run-context';

/** A person approves or rejects the cutover (or the deadline passes); nothing irreversible happens before. */
export async function awaitApproval(run: MigrationRun): Promise<MigrateVmResult | undefined> {
  run.record({ kind: 'await-approval', vm: run.vm.assessment.pveName });
  const { gate } = run;
  const deadline = run.settings.cutover.approvalDeadlineMs;
  const decided = await run.waitFor('cutover approval', () =>
    deadline === undefined ? condition(() => gate.decided).then(() => true) : condition(() => gate.decided, deadline),
  );
  // A `ferry place` under way finishes first: the cutover runs on the shell it builds.
  await run.moves.settled();
  gate.closeApproval();
  if (!decided) return run.finish('approval-expired', 'approval-expired');
  if (gate.rejection) {
    run.status.rejection = gate.rejection;
    return run.finish('rejected', 'rejected');
  }
  run.status.approval = gate.approval;
  return undefined;
}
