import {
  describeChange,
  formatChangeValue,
  stepRequests,
  type ApplySteps,
  type ChangePlan,
  type PlannedChange,
} from '../src/domain/change';
import { changeVmWorkflowId, type ChangeStatus } from '../src/domain/change-vm';

/**
 * How a person reads a day-2 change plan (`ferry plan --change`) and a `changeVm` run (`ferry status
 * change-<vmid>`, `ferry apply --wait`): each change with its class, why and the upstream rule; the
 * requests ferry sends; the refusals with their reasons; each change's outcome and what the run waits for.
 */

/** What `planChange` returns (workflows/plan-change.ts), as the CLI reads it. */
export interface PlannedVmChange {
  netboxId: number;
  name: string;
  vmid: number;
  plan?: ChangePlan;
  problems?: string[];
}

export function renderChangePlan(result: PlannedVmChange): string[] {
  const head = `NetBox VM ${result.name} (id ${result.netboxId}) → Proxmox VM ${result.vmid}`;
  if (!result.plan) {
    const problems = result.problems ?? [];
    return [`${head}: cannot be planned (the record does not translate into a VM):`, ...problems.map((p) => `  ${p}`)];
  }
  const plan = result.plan;
  const lines = [`${head} on ${plan.node} (${plan.power})`];
  if (plan.changes.length === 0 && plan.accepted.length === 0)
    lines.push('  no changes: NetBox and Proxmox agree on every field ferry manages');
  const acting = plan.changes.filter((c) => c.class !== 'refused' && c.class !== 'reported');
  if (acting.length) lines.push('changes:', ...acting.flatMap(changeLines));
  const refused = plan.changes.filter((c) => c.class === 'refused');
  if (refused.length) lines.push('refused (nothing written for these):', ...refused.flatMap(changeLines));
  const reported = plan.changes.filter((c) => c.class === 'reported');
  if (reported.length)
    lines.push('reported (drift the policy reports, nothing written):', ...reported.flatMap(changeLines));
  if (plan.accepted.length) {
    lines.push('kept as changed in Proxmox (change.handDrift: proxmox):');
    for (const a of plan.accepted)
      lines.push(
        `  ${a.id}: Proxmox ${formatChangeValue(a.kind, a.proxmox)}, NetBox ${formatChangeValue(a.kind, a.netbox)}`,
      );
  }
  const steps = describeSteps(plan.steps);
  if (steps.length) lines.push(`steps (${stepRequests(plan.steps)} Proxmox request(s) beyond the reads):`, ...steps);
  for (const note of plan.notes) lines.push(`note: ${note}`);
  return lines;
}

function changeLines(change: PlannedChange): string[] {
  return [`  ${describeChange(change)}`, `      rule: ${change.rule}`];
}

/** The plan's request groups, in the order the run sends them. */
export function describeSteps(steps: ApplySteps): string[] {
  const lines: string[] = [];
  if (steps.live) lines.push(`  live:    one config write now: ${steps.live.changes.join(', ')}`);
  for (const m of steps.moves)
    lines.push(
      `  move:    ${m.slot} to ${m.storage}, ${m.deleteSource ? 'source deleted' : `source ${m.sourceVolume} kept as unusedN`}: ${m.change}`,
    );
  for (const r of steps.resizes) lines.push(`  resize:  ${r.slot} to ${r.size}: ${r.change}`);
  if (steps.restart)
    lines.push(
      `  restart: one config write after an approval or in the maintenance window, pending until the VM's next start: ${steps.restart.changes.join(', ')}`,
    );
  if (steps.stopped)
    lines.push(
      `  stopped: one config write while the VM is stopped (an approval with --restart): ${steps.stopped.changes.join(', ')}`,
    );
  return lines;
}

/** The command that decides a run waiting at its gate. */
export function approveCommand(vmid: number): string {
  return `ferry approve ${changeVmWorkflowId(vmid)} --by NAME --reason TEXT [--restart]   (or: ferry reject ${changeVmWorkflowId(vmid)} --by NAME --reason TEXT)`;
}

/** What the run waits for, as a person acts on it. */
export function changeWaitLine(s: Pick<ChangeStatus, 'stage' | 'waiting' | 'vmid'>): string | undefined {
  if (s.stage === 'awaiting-approval')
    return `waits for an approval of the changes that wait for a restart: ${approveCommand(s.vmid)}`;
  if (s.waiting) return `waits for ${s.waiting.for}`;
  return undefined;
}

/** `ferry status change-<vmid>`: the VM, the trigger, each change with its outcome, the decisions and what it waits for. */
export function renderChangeStatus(s: ChangeStatus): string[] {
  const vm = [`VM ${s.vmid}`, s.name, s.node ? `on ${s.node}` : undefined, `NetBox VM ${s.netboxId}`];
  const lines = [`  ${vm.filter(Boolean).join(', ')}`];
  const edits = s.edits.length ? `; ${s.edits.length} edit(s) reported` : '';
  lines.push(`  started by ${s.trigger.source} at ${s.trigger.at}${edits}`);
  if (s.problems?.length) lines.push('  cannot be planned:', ...s.problems.map((p) => `    ${p}`));
  const wait = changeWaitLine(s);
  if (wait) lines.push(`  ${wait}`);
  lines.push(...renderOutcomes(s));
  if (s.approval)
    lines.push(
      `  approved by ${s.approval.by}${s.approval.restart ? ' (ferry restarts the VM)' : ''}: ${s.approval.reason}`,
    );
  if (s.rejection) lines.push(`  rejected by ${s.rejection.by}: ${s.rejection.reason}`);
  if (s.restarted) lines.push('  ferry restarted the VM (asked by the approval)');
  if (s.guestUnread) lines.push(`  guest: ${s.guestUnread}`);
  for (const i of s.ignored) lines.push(`  ignored: ${i.message}: ${i.reason}`);
  for (const note of s.plan?.notes ?? []) lines.push(`  note: ${note}`);
  return lines;
}

/** Each planned change with its outcome (`held` until the gate lets it through), or the plan alone before any outcome. */
export function renderOutcomes(s: Pick<ChangeStatus, 'plan' | 'outcomes'>): string[] {
  const changes = s.plan?.changes ?? [];
  if (!s.plan) return [];
  if (changes.length === 0) return ['  no changes: NetBox and Proxmox agree'];
  const lines = ['  changes:'];
  for (const c of changes) {
    const outcome = s.outcomes.find((o) => o.id === c.id);
    lines.push(`    ${describeChange(c)}`);
    lines.push(outcome ? `      → ${outcome.outcome}: ${outcome.detail}` : `      → not applied yet`);
  }
  return lines;
}
