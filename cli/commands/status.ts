import type { Command } from 'commander';
import { WorkflowFailedError, type Client, type WorkflowExecutionDescription, type WorkflowHandle } from '@temporalio/client';
import { rootCauseMessage } from '../workflow-result';
import { formatVerdict, type EndpointVerdict } from '../../src/domain/doctor';
import { describeAction, describeVerification, type GuestVerification, type MigrationAction } from '../../src/domain/migration';
import { withClient, type GlobalOptions } from '../client';
import { resolveTarget } from '../targets';
import { renderCancelAndWindow } from '../render-cancel-window';
import { renderLifecycle } from '../render-lifecycle';
import { intOption } from '../int-option';
import { anyStatusQuery } from '../../src/domain/messages';
import { NoWorkerError, noWorkerLine, requireWorker, workerPolls } from '../worker-presence';

interface StatusFlags {
  watch?: boolean;
  wait?: boolean;
  json?: boolean;
  interval: number;
}

/** Every ferry workflow answers the `status` query; this prints it, with the progress its running activities heartbeat. */
export function registerStatus(program: Command): void {
  program
    .command('status <target>')
    .description('stage, steps done, waits and errors of a workflow (VM name, wave id or workflow id)')
    .option('--watch', 'refresh until the workflow ends (live progress of vMotions and imports)')
    .option('--interval <seconds>', 'refresh interval with --watch', intOption(1, 3600), 2)
    .option('--json', 'print the raw status as JSON')
    .option('--wait', 'when no worker polls the workflow\'s task queue, wait for one (else: say so and exit 1)')
    .action(async (target: string, flags: StatusFlags, cmd: Command) => {
      await withClient(cmd.optsWithGlobals<GlobalOptions>(), async (client) => {
        const handle = await resolveTarget(client, target);
        for (;;) {
          let view = await statusView(client, handle);
          if (view.noWorker !== undefined) {
            // Its status needs a worker to answer the query: say so now, rather than wait in silence.
            if (!flags.wait) {
              if (flags.json) console.log(JSON.stringify(view, null, 2));
              else console.log(renderStatus(view));
              throw new NoWorkerError(`${noWorkerLine(client, view.noWorker, `the status of ${handle.workflowId}`)}; or pass --wait to wait for one`);
            }
            await requireWorker(client, view.noWorker, { wait: true, what: `the status of ${handle.workflowId}` });
            view = await statusView(client, handle);
          }
          if (flags.json) console.log(JSON.stringify(view, null, 2));
          else {
            if (flags.watch) process.stdout.write('\x1b[2J\x1b[H');
            console.log(renderStatus(view));
          }
          if (!flags.watch || view.state !== 'RUNNING') return;
          await new Promise((r) => setTimeout(r, flags.interval * 1000));
        }
      });
    });
}

export interface StatusView {
  workflowId: string;
  type: string;
  state: string;
  status?: Record<string, unknown>;
  result?: unknown;
  progress: Array<{ activity: string; attempt: number; details?: unknown }>;
  /** The task queue no worker polls, when the status needed one (it was then not asked). */
  noWorker?: string;
}

/** The workflow's own status; undefined when no worker answers (the caller shows what describe knows). */
async function queryStatus(handle: WorkflowHandle): Promise<Record<string, unknown> | undefined> {
  const status = await handle.query(anyStatusQuery).catch(() => undefined);
  return status as Record<string, unknown> | undefined;
}

export async function statusView(client: Client, handle: WorkflowHandle): Promise<StatusView> {
  const description = await handle.describe();
  const state = description.status.name;
  let status: Record<string, unknown> | undefined;
  let result: unknown;
  // A query waits for a worker as long as none comes: ask only when one polls the workflow's queue.
  const needsWorker = state === 'RUNNING' || state === 'FAILED';
  if (needsWorker && !(await workerPolls(client, description.taskQueue))) {
    return { workflowId: handle.workflowId, type: description.type, state, progress: progressOf(client, description), noWorker: description.taskQueue };
  }
  if (state === 'RUNNING') {
    status = await queryStatus(handle);
  } else if (state === 'COMPLETED') {
    result = await handle.result();
    status = (result as { status?: Record<string, unknown> })?.status ?? (result as Record<string, unknown>);
  } else if (state === 'FAILED') {
    // A closed workflow still answers queries (a worker replays it): the steps up to the failure.
    status = await queryStatus(handle);
    if (typeof status?.error !== 'string') {
      const failure = await handle.result().then(
        () => undefined,
        (err: unknown) => (err instanceof WorkflowFailedError ? rootCauseMessage(err) : String(err)),
      );
      status = { ...status, error: failure };
    }
  }
  return { workflowId: handle.workflowId, type: description.type, state, status, result, progress: progressOf(client, description) };
}

function progressOf(client: Client, description: WorkflowExecutionDescription): StatusView['progress'] {
  return (description.raw.pendingActivities ?? []).map((a) => ({
    activity: a.activityType?.name ?? '?',
    attempt: a.attempt ?? 1,
    details: a.heartbeatDetails?.payloads?.length ? client.options.loadedDataConverter.payloadConverter.fromPayload(a.heartbeatDetails.payloads[0]!) : undefined,
  }));
}

export function renderStatus(view: StatusView): string {
  const lines = [`${view.workflowId} (${view.type}): ${view.state}`];
  if (view.noWorker !== undefined) lines.push(`  no worker polls task queue "${view.noWorker}": the workflow's own status cannot be read, nor can it move on`);
  const s = view.status ?? {};
  if (typeof s.stage === 'string') lines.push(`  stage: ${s.stage}${typeof s.outcome === 'string' ? `, outcome ${s.outcome}` : ''}`);
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
  for (const p of view.progress) lines.push(`  running: ${p.activity} (attempt ${p.attempt})${p.details !== undefined ? ` ${JSON.stringify(p.details)}` : ''}`);
  return lines.join('\n');
}
