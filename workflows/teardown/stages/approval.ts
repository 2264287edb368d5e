import { ApplicationFailure, condition } from '@temporalio/workflow';
import { approvalReason, type TeardownOutcome, type TeardownTarget } from '../../../src/domain/provisioning';
import type { TeardownGate } from '../gate';
import type { TeardownRun } from '../run-context';

/**
 * A VM in service is not removed on one command: when its record's status (or the caller) asks for
 * it, waits for a person's decision. Returns the outcome that ends the teardown here, if any.
 */
export async function awaitApproval(
  { settings, status, enter, waitFor }: TeardownRun,
  gate: TeardownGate,
  target: TeardownTarget,
  requireApproval: boolean | undefined,
): Promise<TeardownOutcome | undefined> {
  const reason = approvalReason(target, settings.teardown.approvalFor, requireApproval);
  if (!reason) return undefined;
  if (settings.approvers.length === 0) {
    throw ApplicationFailure.create({
      type: 'NoApprovers',
      message: `${reason}, but provisioning.approvers is empty: nobody could approve; name the approvers in ferry.yaml`,
      nonRetryable: true,
    });
  }
  status.approvalRequired = reason;
  enter('awaiting-approval');
  gate.openGate();
  const deadline = settings.teardown.approvalDeadlineMs;
  const decided = await waitFor('teardown approval', () =>
    deadline === undefined ? condition(() => gate.decided).then(() => true) : condition(() => gate.decided, deadline),
  );
  gate.closeGate();
  if (!decided) return 'approval-expired';
  if (gate.rejection) {
    status.rejection = gate.rejection;
    return 'rejected';
  }
  status.approval = gate.approval;
  return undefined;
}
