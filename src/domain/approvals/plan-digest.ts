import type { ChangePlan } from '../change/plan';
import type { CutoverPlan } from '../migration/cutover-plan';
import type { TeardownTarget } from '../provisioning/teardown';
import { planDigest } from './statement';

/**
 * What an approver of a cutover signs: what the cutover does (VM, VMID, mode, target storage, disks,
 * NICs). The downtime estimate is shown but not signed: it moves with the throughput the wave measures,
 * and an approval should not go stale because an estimate improved.
 */
export function cutoverPlanDigest(plan: CutoverPlan): string {
  // The schedule (cutover window, approve --at) changes with the clock and is not the plan.
  const { expectedDowntimeSeconds: _estimate, throughput: _measured, schedule: _when, ...what } = plan;
  return planDigest(what);
}

/** What an approver of a teardown signs: the target as the teardown read it (VM, node, records). */
export function teardownPlanDigest(target: TeardownTarget): string {
  return planDigest(target);
}

/**
 * What an approver of a day-2 change signs: the VM, each change that waits for the approval (those that
 * wait for a restart, or need the VM stopped) with its values, and whether ferry restarts the VM. A plan
 * made again (a new NetBox edit) with other changes needs a new approval.
 */
export function changePlanDigest(plan: Pick<ChangePlan, 'vmid' | 'changes'>, restart: boolean): string {
  const gated = plan.changes
    .filter((c) => c.operation && (c.waitsForRestart || c.class === 'needs-stop'))
    .map((c) => ({ id: c.id, class: c.class, from: c.from, to: c.to }));
  return planDigest({ vmid: plan.vmid, gated, restart });
}
