import { EMPTY_BASELINE, toStored, type Baseline } from './baseline';
import type { ChangePlan } from './plan';
import type { ChangeOutcome, ChangeOutcomeKind } from './verify';

/** Outcomes after which Proxmox has (or holds for its next start) what ferry wrote. */
const DONE: ReadonlySet<ChangeOutcomeKind> = new Set(['applied-live', 'applied-after-restart', 'pending-restart']);

/**
 * The baseline to store after a run: every field both sides agreed on, or that ferry applied, at
 * NetBox's value; a field ferry did not apply (refused, failed, held, reported) keeps its old entry, so
 * the next run still tells who moved; hand changes the policy accepted, with both sides' values.
 */
export function baselineAfter(
  plan: Pick<ChangePlan, 'compared' | 'changes' | 'accepted'>,
  outcomes: readonly ChangeOutcome[],
  previous: Baseline | undefined,
): Baseline {
  const before = previous ?? EMPTY_BASELINE;
  const changes = new Map(plan.changes.map((c) => [c.id, c]));
  const done = new Set(outcomes.filter((o) => DONE.has(o.outcome)).map((o) => o.id));
  const accepted = new Set(plan.accepted.map((a) => a.id));
  const applied: Baseline['applied'] = {};
  for (const [id, field] of Object.entries(plan.compared)) {
    if (accepted.has(id)) continue;
    const change = changes.get(id);
    if (!change) applied[id] = toStored(field.netbox);
    else if (done.has(id)) applied[id] = toStored(change.to);
    else if (id in before.applied) applied[id] = before.applied[id] ?? null;
  }
  // A change on a field no longer compared (a disk detached: its own id) is recorded too.
  for (const change of plan.changes)
    if (!(change.id in plan.compared) && done.has(change.id)) applied[change.id] = toStored(change.to);
  return {
    version: 1,
    applied,
    accepted: Object.fromEntries(
      plan.accepted.map((a) => [a.id, { netbox: toStored(a.netbox), proxmox: toStored(a.proxmox) }]),
    ),
  };
}
