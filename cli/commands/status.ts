import type { Command } from 'commander';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { formatVerdict, type EndpointVerdict } from '../../src/domain/doctor';
import { describeAction, describeVerification, type GuestVerification, type MigrationAction } from '../../src/domain/migration';
import { withClient, type GlobalOptions } from '../client';
import { resolveTarget } from '../targets';
import { renderCancelAndWindow } from '../render-cancel-window';
import { renderLifecycle } from '../render-lifecycle';
import { intOption } from '../int-option';
import { WAVE_ROWS_DEFAULT, WAVE_ROWS_MAX, type StatusView } from '../../src/domain/status';
import { NoWorkerError, noWorkerLine, requireWorker } from '../worker-presence';
import { loadStatus, type LoadOptions } from '../status-view/load';
import { copyDetail, PERMIT_STAGES, renderWave } from '../status-view/render-wave';
import { formatDuration } from '../status-view/format';
import { watcher } from '../status-view/watch';

interface StatusFlags {
  watch?: boolean;
  wait?: boolean;
  json?: boolean;
  full?: boolean;
  attention?: boolean;
  page: number;
  pageSize: number;
  interval: number;
}

/** Every ferry workflow answers the `status` query; a wave its summary. This prints it, with the progress its running activities heartbeat. */
export function registerStatus(program: Command): void {
  program
    .command('status <target>')
    .description('stage, steps done, waits and errors of a workflow (VM name, wave id or workflow id); a wave: counts, ETA and a page of VMs')
    .option('--watch', 'refresh until the workflow ends: on a terminal in place (progress bars of vMotions and imports), else a line per change')
    .option('--interval <seconds>', 'refresh interval with --watch', intOption(1, 3600), 2)
    .option('--json', 'print the status as JSON (the shape in docs/cli.md)')
    .option('--page <n>', 'a wave: which page of VMs (those needing a person first)', intOption(1, 1_000_000), 1)
    .option('--page-size <n>', `a wave: VMs per page (at most ${WAVE_ROWS_MAX})`, intOption(1, WAVE_ROWS_MAX), WAVE_ROWS_DEFAULT)
    .option('--attention', 'a wave: only the VMs that wait for a person or failed')
    .option('--full', 'a wave: also its full status (every VM; large for a big wave)')
    .option('--wait', 'when no worker polls the workflow\'s task queue, wait for one (else: say so and exit 1)')
    .action(async (target: string, flags: StatusFlags, cmd: Command) => {
      await withClient(cmd.optsWithGlobals<GlobalOptions>(), async (client) => {
        const handle = await resolveTarget(client, target);
        const options: LoadOptions = {
          page: { offset: (flags.page - 1) * flags.pageSize, limit: flags.pageSize, filter: flags.attention ? 'attention' : 'all' },
          full: flags.full,
        };
        const out = flags.watch && !flags.json ? watcher((view) => renderStatus(view)) : undefined;
        try {
          for (;;) {
            let view = await loadStatus(client, handle, options);
            if (view.noWorker !== undefined) {
              // Its status needs a worker to answer the query: say so now, rather than wait in silence.
              if (!flags.wait) {
                if (flags.json) console.log(JSON.stringify(view, null, 2));
                else console.log(renderStatus(view));
                throw new NoWorkerError(`${noWorkerLine(client, view.noWorker, `the status of ${handle.workflowId}`)}; or pass --wait to wait for one`);
              }
              await requireWorker(client, view.noWorker, { wait: true, what: `the status of ${handle.workflowId}` });
              view = await loadStatus(client, handle, options);
            }
            if (flags.json) console.log(JSON.stringify(view, null, 2));
            else if (out) out.show(view);
            else console.log(renderStatus(view));
            if (!flags.watch || view.state !== 'RUNNING') return;
            await new Promise((r) => setTimeout(r, flags.interval * 1000));
          }
        } finally {
          out?.done();
        }
      });
    });
}

export type { StatusView };

/** A workflow's status (a wave: its summary), as `status` shows it. */
export function statusView(client: Client, handle: WorkflowHandle): Promise<StatusView> {
  return loadStatus(client, handle);
}

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
  if (view.wave && !view.status) return [`${view.workflowId} (${view.type}): ${view.state}`, ...renderWave(view, now)].join('\n');
  const lines = [`${view.workflowId} (${view.type}): ${view.state}`];
  if (view.noWorker !== undefined) lines.push(`  no worker polls task queue "${view.noWorker}": the workflow's own status cannot be read, nor can it move on`);
  const s = view.status ?? {};
  if (typeof s.stage === 'string') lines.push(`  stage: ${s.stage}${typeof s.outcome === 'string' ? `, outcome ${s.outcome}` : ''}${view.state === 'RUNNING' ? stageAge(s, view, now) : ''}`);
  if (typeof s.error === 'string') lines.push(`  error: ${s.error}`);
  if (Array.isArray(s.verdicts)) for (const v of s.verdicts as EndpointVerdict[]) lines.push(`  ${formatVerdict(v)}`);
  if (Array.isArray(s.vms)) {
    lines.push('  VMs:');
    for (const vm of s.vms as Array<Record<string, unknown>>) {
      const guest = vm.verification ? `guest ${describeVerification(vm.verification as GuestVerification)}` : undefined;
      lines.push(`    ${String(vm.name).padEnd(20)} ${String(vm.state).padEnd(9)} ${String(vm.stage ?? '-').padEnd(18)} ${[[vm.outcome, vm.error].filter(Boolean).join(': '), guest].filter(Boolean).join(', ')}`);
    }
  }
  if (Array.isArray(s.refused) && s.refused.length) {
    lines.push('  refused:');
    for (const r of s.refused as Array<{ name: string; refusals: Array<{ reason: string }> }>) lines.push(`    ${r.name}: ${r.refusals.map((x) => x.reason).join('; ')}`);
  }
  if (Array.isArray(s.vms) && Array.isArray(s.ignored)) {
    for (const i of s.ignored as Array<{ message: string; reason: string }>) lines.push(`  ignored: ${i.message}: ${i.reason}`);
  }
  if (Array.isArray(s.actions) && !Array.isArray(s.vms)) {
    lines.push('  done:');
    for (const a of s.actions as MigrationAction[]) lines.push(`    ${typeof a === 'object' && a && 'kind' in a ? describeAction(a) : JSON.stringify(a)}`);
  }
  lines.push(...renderLifecycle(s));
  lines.push(...renderCancelAndWindow(s));
  if (Array.isArray(s.waits) && s.waits.length) {
    lines.push('  waits:');
    for (const w of s.waits as Array<{ for: string; waitedMs: number }>) lines.push(`    ${w.for}: ${(w.waitedMs / 1000).toFixed(1)} s`);
  }
  const approval = s.approval as { by?: string; reason?: string } | undefined;
  if (approval?.by) lines.push(`  approved by ${approval.by}: ${approval.reason}`);
  if (view.wave) lines.push(...renderWave(view, now));
  for (const p of view.progress) {
    const detail = p.progress ? copyDetail(p.progress, p.attempt) : `(attempt ${p.attempt})${p.details !== undefined ? ` ${JSON.stringify(p.details)}` : ''}`;
    lines.push(`  running: ${p.activity} ${detail}`);
  }
  return lines.join('\n');
}
