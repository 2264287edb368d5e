import { formatVerdict, type EndpointVerdict } from '../../src/domain/doctor';
import {
  describeAction,
  describeVerification,
  type GuestVerification,
  type MigrationAction,
} from '../../src/domain/migration';
import type { StatusView } from '../../src/domain/status';
import { renderCancelAndWindow } from '../render-cancel-window';
import { renderLifecycle } from '../render-lifecycle';
import { renderPlacement } from '../render-placement';
import { copyDetail, PERMIT_STAGES, renderWave } from './render-wave';
import { formatDuration } from './format';

/** How long the running workflow has been in its stage, and what it waits for when no activity runs. */
function stageAge(s: Record<string, unknown>, view: StatusView, now: number): string {
  const timings = Array.isArray(s.timings) ? (s.timings as Array<{ startedAt?: number }>) : [];
  const since = timings.at(-1)?.startedAt;
  if (since === undefined) return '';
  const age = formatDuration((now - since) / 1000);
  const permit = PERMIT_STAGES[String(s.stage)];
  if (permit && view.progress.length === 0) return ` (waits for ${permit} ${age})`;
  return ` (for ${age})`;
}

export function renderStatus(view: StatusView, now = Date.now()): string {
  if (view.wave && !view.status)
    return [`${view.workflowId} (${view.type}): ${view.state}`, ...renderWave(view, now)].join('\n');
  const lines = [`${view.workflowId} (${view.type}): ${view.state}`];
  if (view.noWorker !== undefined)
    lines.push(
      `  no worker polls task queue "${view.noWorker}": the workflow's own status cannot be read, nor can it move on`,
    );
  const s = view.status ?? {};
  if (typeof s.stage === 'string')
    lines.push(
      `  stage: ${s.stage}${typeof s.outcome === 'string' ? `, outcome ${s.outcome}` : ''}${view.state === 'RUNNING' ? stageAge(s, view, now) : ''}`,
    );
  if (typeof s.error === 'string') lines.push(`  error: ${s.error}`);
  lines.push(...renderPlacement(s));
  if (Array.isArray(s.verdicts)) for (const v of s.verdicts as EndpointVerdict[]) lines.push(`  ${formatVerdict(v)}`);
  if (Array.isArray(s.vms)) {
    lines.push('  VMs:');
    for (const vm of s.vms as Array<Record<string, unknown>>) {
      const guest = vm.verification ? `guest ${describeVerification(vm.verification as GuestVerification)}` : undefined;
      const ended = [vm.outcome, vm.refusal ?? vm.error].filter(Boolean).join(': ');
      lines.push(
        `    ${String(vm.name).padEnd(20)} ${String(vm.state).padEnd(9)} ${String(vm.stage ?? '-').padEnd(18)} ${[ended, guest].filter(Boolean).join(', ')}`,
      );
    }
  }
  // A VM's own refusals (a wave lists its discovery refusals as `refused`, below).
  if (Array.isArray(s.refusals) && s.refusals.length) {
    lines.push('  refused:');
    for (const r of s.refusals as Array<{ subject: string; reason: string }>)
      lines.push(`    ${r.reason.startsWith(r.subject) ? r.reason : `${r.subject}: ${r.reason}`}`);
    if (typeof s.shellKept === 'string') lines.push(`    ${s.shellKept}`);
  }
  if (Array.isArray(s.refused) && s.refused.length) {
    lines.push('  refused:');
    for (const r of s.refused as Array<{ name: string; refusals: Array<{ reason: string }> }>)
      lines.push(`    ${r.name}: ${r.refusals.map((x) => x.reason).join('; ')}`);
  }
  // Messages a workflow heard and did not act on (an unknown approver, a missing signature…), wave or VM.
  if (Array.isArray(s.ignored)) {
    for (const i of s.ignored as Array<{ message: string; reason: string }>)
      lines.push(`  ignored: ${i.message}: ${i.reason}`);
  }
  if (Array.isArray(s.actions) && !Array.isArray(s.vms)) {
    lines.push('  done:');
    for (const a of s.actions as MigrationAction[])
      lines.push(`    ${typeof a === 'object' && a && 'kind' in a ? describeAction(a) : JSON.stringify(a)}`);
  }
  lines.push(...renderLifecycle(s));
  lines.push(...renderCancelAndWindow(s));
  if (Array.isArray(s.waits) && s.waits.length) {
    lines.push('  waits:');
    for (const w of s.waits as Array<{ for: string; waitedMs: number }>)
      lines.push(`    ${w.for}: ${(w.waitedMs / 1000).toFixed(1)} s`);
  }
  const approval = s.approval as { by?: string; reason?: string; via?: string; signed?: true } | undefined;
  // A day-2 change says its approval itself (with the restart it asked for).
  if (approval?.by && s.kind !== 'change')
    lines.push(`  approved by ${approval.by}${approvalSigning(approval)}: ${approval.reason}`);
  if (view.wave) lines.push(...renderWave(view, now));
  for (const p of view.progress) {
    const detail = p.progress
      ? copyDetail(p.progress, p.attempt)
      : `(attempt ${p.attempt})${p.details !== undefined ? ` ${JSON.stringify(p.details)}` : ''}`;
    lines.push(`  running: ${p.activity} ${detail}`);
  }
  return lines.join('\n');
}

/** ` (signed)` or ` (unsigned)` for an approval taken through ferry; a setting's decision has no signer. */
function approvalSigning(approval: { via?: string; signed?: true }): string {
  if (!approval.via || approval.via === 'setting') return '';
  return approval.signed ? ' (signed)' : ' (unsigned)';
}
