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
