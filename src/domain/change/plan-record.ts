import { specFromRecord, type NetboxVmRecord, type SpecDefaults } from '../provisioning/spec';
import type { Baseline } from './baseline';
import { parseBaseline } from './baseline-schema';
import { intentFromSpec } from './intent';
import { planChanges, type ChangePlan } from './plan';
import type { ChangePolicy } from './policy';
import type { VmReality } from './reality';

/** A VM as NetBox has it for day 2: its record with hardware, and the baseline ferry stored (or why not). */
export interface RecordSide {
  record: NetboxVmRecord;
  baseline?: Baseline;
  /** Why the stored baseline could not be read: it is ignored, and the plan says so. */
  baselineProblem?: string;
}

/** A record with the baseline as NetBox stores it (`ferry_applied`, unchecked): read, or why it cannot be. */
export function recordSideOf(record: NetboxVmRecord, storedBaseline: unknown): RecordSide {
  const stored = parseBaseline(storedBaseline);
  if (!stored.ok) return { record, baselineProblem: stored.problem };
  return stored.baseline ? { record, baseline: stored.baseline } : { record };
}

/**
 * The change plan from both sides: NetBox's record through provisioning's own translation (a record it
 * could not build is refused with the same problems), Proxmox's config and pending, the stored baseline
 * and the policy. One chain for `changeVm`, `ferry plan --change` and the drift report, so the dry run
 * and the report show exactly what a run then does.
 */
export function planFromRecord(
  side: RecordSide,
  reality: VmReality,
  settings: { defaults: SpecDefaults; policy: ChangePolicy },
): { plan: ChangePlan } | { problems: string[] } {
  const built = specFromRecord(side.record, settings.defaults);
  if (!built.ok) return { problems: built.problems };
  const intent = intentFromSpec(built.spec, { record: side.record, defaults: settings.defaults });
  const plan = planChanges(intent, reality, side.baseline, settings.policy);
  if (side.baselineProblem)
    plan.notes.push(`${side.baselineProblem}: it is ignored (every difference counts as NetBox's)`);
  return { plan };
}
