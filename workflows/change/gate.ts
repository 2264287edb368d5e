import { changePlanDigest, type ApprovalPolicy } from '../../src/domain/approvals';
import type { ChangeDecision, ChangeStatus } from '../../src/domain/change-vm';
import type { DecisionRecord } from '../../src/domain/migration/status';
import {
  approveChangeSignal,
  approveChangeUpdate,
  rejectChangeSignal,
  rejectChangeUpdate,
} from '../../src/domain/messages';
import { PersonGate } from '../person-gate';

/**
 * The human gate of a day-2 change: the changes that wait for a restart (or need the VM stopped) are
 * written only once a person approves them (or inside the maintenance window), and ferry restarts the
 * VM only when the approval asks for it. A signed approval names this workflow and the plan's gated
 * changes with the restart choice; a plan made again (a new NetBox edit) needs a new decision.
 */
export class ChangeGate extends PersonGate<ChangeDecision, ChangeStatus, DecisionRecord & { restart?: boolean }> {
  constructor(status: ChangeStatus, approvers: readonly string[], policy: ApprovalPolicy, onIgnored?: () => void) {
    super(
      {
        onIgnored,
        what: 'the change',
        status,
        approvers,
        policy,
        approve: [approveChangeUpdate, approveChangeSignal],
        reject: [rejectChangeUpdate, rejectChangeSignal],
        action: 'approve-change',
        digest: (decision) => status.plan && changePlanDigest(status.plan, decision.restart === true),
      },
      (record, decision) => ({ ...record, ...(decision.restart ? { restart: true } : {}) }),
    );
  }
}
