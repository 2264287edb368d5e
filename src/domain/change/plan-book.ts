import type { AcceptedDrift, PlannedChange } from './change';
import { plannedChange, RULES, type PlanContext, type Verdict } from './context';
import { decide, type Decision, type FieldDelta } from './decide';
import type { FieldValue } from './fields';

/** A managed field's value on both sides, as compared (Proxmox's after the next start). */
export interface ComparedField {
  netbox?: string;
  proxmox?: string;
}

/** What a rule makes of a NetBox value that Proxmox should take: its verdict, given the decision. */
export type VerdictOf = (decision: Extract<Decision, { act: 'apply' }>) => Verdict;

/** Collects a plan's changes, the hand changes the policy keeps, and every field compared. */
export class PlanBook {
  readonly changes: PlannedChange[] = [];
  readonly accepted: AcceptedDrift[] = [];
  readonly compared: Record<string, ComparedField> = {};

  constructor(readonly ctx: PlanContext) {}

  /** Decides a field and, when something is to be done or said, records its change (returned). */
  consider(delta: FieldDelta, verdictOf: VerdictOf): PlannedChange | undefined {
    this.compared[delta.id] = compared(delta.want, delta.effective);
    const decision = decide(delta, this.ctx.baseline, this.ctx.policy);
    if (decision.act === 'none') return undefined;
    if (decision.act === 'accept') {
      this.accepted.push(decision.drift);
      return undefined;
    }
    const verdict: Verdict =
      decision.act === 'apply' ? verdictOf(decision) : { class: 'reported', why: decision.why, rule: RULES.policy };
    const change = plannedChange(delta, decision, verdict);
    this.changes.push(change);
    return change;
  }
}

function compared(netbox: FieldValue, proxmox: FieldValue): ComparedField {
  return { ...(netbox !== undefined ? { netbox } : {}), ...(proxmox !== undefined ? { proxmox } : {}) };
}

/** NetBox's value is the VM's current one and only a pending value differs: dropping that is a config-only write. */
export function onlyPendingDiffers(delta: FieldDelta): boolean {
  return delta.want === delta.current && delta.effective !== delta.current;
}

/** The verdict for dropping a pending value NetBox does not want (`revert`, or writing the current value again). */
export function revertVerdict(operation: Verdict['operation']): Verdict {
  return {
    class: 'live',
    why: 'NetBox wants the value the VM runs with: the pending one is dropped (a pending value equal to the current one is removed)',
    rule: RULES.updateVm,
    ...(operation ? { operation } : {}),
  };
}
