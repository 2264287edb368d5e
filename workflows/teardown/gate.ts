import { teardownPlanDigest, type ApprovalPolicy } from '../../src/domain/approvals';
import type { TeardownDecision, TeardownStatus } from '../../src/domain/provisioning';
import {
  approveTeardownSignal,
  approveTeardownUpdate,
  rejectTeardownSignal,
  rejectTeardownUpdate,
} from '../../src/domain/messages';
import { PersonGate } from '../person-gate';

/**
 * The human gate of a teardown: approve or reject, only while the teardown waits for one; a signed
 * approval names this teardown's workflow and the digest of the target it was shown.
 */
export class TeardownGate extends PersonGate<TeardownDecision, TeardownStatus> {
  constructor(status: TeardownStatus, approvers: readonly string[], policy: ApprovalPolicy, onIgnored?: () => void) {
    super({
      onIgnored,
      what: 'the teardown',
      status,
      approvers,
      policy,
      approve: [approveTeardownUpdate, approveTeardownSignal],
      reject: [rejectTeardownUpdate, rejectTeardownSignal],
      action: 'approve-teardown',
      digest: () => status.target && teardownPlanDigest(status.target),
    });
  }
}
