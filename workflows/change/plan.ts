import type { ChangeRecord } from '../../activities/change-contract';
import { intentFromSpec, planChanges, type ChangePlan, type VmReality } from '../../src/domain/change';
import type { ChangeSettings } from '../../src/domain/change-vm';
import { specFromRecord } from '../../src/domain/provisioning';

/**
 * The change plan from both sides: NetBox's record through provisioning's own translation (a record it
 * could not build is refused with the same problems), Proxmox's config and pending, the stored baseline
 * and the policy. The same function serves `changeVm` and `ferry plan --change` (planChange), so the dry
 * run shows exactly what the run then does.
 */
export function planFromBothSides(
  record: ChangeRecord,
  reality: VmReality,
  settings: Pick<ChangeSettings, 'defaults' | 'policy'>,
): { plan: ChangePlan } | { problems: string[] } {
  const built = specFromRecord(record.record, settings.defaults);
  if (!built.ok) return { problems: built.problems };
  const intent = intentFromSpec(built.spec, { record: record.record, defaults: settings.defaults });
  const plan = planChanges(intent, reality, record.baseline, settings.policy);
  if (record.baselineProblem)
    plan.notes.push(`${record.baselineProblem}: it is ignored (every difference counts as NetBox's)`);
  return { plan };
}
