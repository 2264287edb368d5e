import type { ChangeRecord } from '../../../activities/change-contract';
import { stableJson } from '../../../src/domain/approvals';
import {
  baselineAfter,
  describeChange,
  describeOutcome,
  type ChangeOutcome,
  type ChangePlan,
} from '../../../src/domain/change';
import type { ChangeRunOutcome } from '../../../src/domain/change-vm';
import type { ChangeRun } from '../run-context';

/** The run's outcome from its changes' outcomes (each says why). */
export function runOutcome(outcomes: readonly ChangeOutcome[]): ChangeRunOutcome {
  const kinds = new Set(outcomes.map((o) => o.outcome));
  if (kinds.has('failed') || kinds.has('refused')) return 'partial';
  if (kinds.has('pending-restart') || kinds.has('held')) return 'pending-restart';
  if (kinds.has('applied-live') || kinds.has('applied-after-restart')) return 'applied';
  return 'nothing-to-do';
}

/**
 * What the run leaves in NetBox: the new baseline (`ferry_applied`) when it differs from the stored one,
 * and a journal entry on the VM with each change and its outcome. A run that changed nothing and found
 * nothing to say writes nothing.
 */
export async function recordRun(
  run: ChangeRun,
  plan: ChangePlan,
  record: ChangeRecord,
  outcome: ChangeRunOutcome,
): Promise<void> {
  run.enter('record');
  const baseline = baselineAfter(plan, run.status.outcomes, record.baseline);
  const unchanged = record.baseline !== undefined && stableJson(baseline) === stableJson(record.baseline);
  if (unchanged && plan.changes.length === 0) return;
  const lines = plan.changes.map((c) => {
    const o = run.status.outcomes.find((x) => x.id === c.id);
    return `- ${describeChange(c)}${o ? `\n  → ${describeOutcome(o)}` : ''}`;
  });
  const kind = outcome === 'partial' ? 'warning' : outcome === 'rejected' ? 'info' : 'success';
  const comments = [
    `ferry changeVm (${run.status.trigger.source}): ${outcome}`,
    ...lines,
    ...plan.notes.map((n) => `note: ${n}`),
  ].join('\n');
  await run.acts.write.recordChange.executeWithOptions(
    { summary: `record the change of NetBox VM ${run.status.netboxId}: baseline and journal` },
    [{ netboxId: run.status.netboxId, baseline, journal: { kind, comments } }],
  );
}
