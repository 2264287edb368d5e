import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { GlobalOptions } from '../client';
import { anyStatusQuery } from '../../src/domain/messages';
import { unpackWaveStatus, type PackedWaveStatus } from '../../src/domain/migration/wave-record';
import {
  buildReport,
  joinRuns,
  readHistory,
  renderHtml,
  renderMarkdown,
  type JsonHistory,
  type ReportModel,
  type WorkflowTimeline,
} from '../../src/report';

interface ReportFlags {
  out?: string;
  md?: boolean;
  json?: boolean;
}

/** Children fetched at once: enough to be quick on a 300-VM wave, few enough to spare the server. */
const FETCH_AT_ONCE = 8;

/** gRPC's NOT_FOUND, as fetchHistory throws it (a raw service error). */
const GRPC_NOT_FOUND = 5;

/** `ferry report`: the picture of a wave or provision batch, from its workflows' histories. */
export function registerReport(program: Command): void {
  program
    .command('report <target>')
    .description(
      "a wave's or provision batch's report (timeline per VM, downtime, throughput, refusals, approvals, failures): one self-contained HTML file",
    )
    .option('--out <file>', 'write the HTML report here (default: ferry-report-<id>.html unless --md or --json)')
    .option('--md', 'print a Markdown summary')
    .option('--json', 'print the report model as JSON')
    .action(async (target: string, flags: ReportFlags, cmd: Command) => {
      // Loaded when the command runs, so that `ferry --help` and the other commands do not pay for it.
      const { withClient } = require('../client') as typeof import('../client');
      await withClient(cmd.optsWithGlobals<GlobalOptions>(), async (client) => {
        const model = await reportOf(client, target, Date.now());
        const out =
          flags.out ?? (flags.md || flags.json ? undefined : `ferry-report-${model.id.replace(/[^\w.-]+/g, '_')}.html`);
        if (out) {
          writeFileSync(out, renderHtml(model));
          console.error(`report: ${model.vms.length} VMs of ${model.workflowId} (${model.state}) → ${out}`);
        }
        if (flags.md) process.stdout.write(renderMarkdown(model));
        if (flags.json) console.log(JSON.stringify(model, null, 2));
      });
    });
}

async function timelineOf(handle: WorkflowHandle, workflowId: string): Promise<WorkflowTimeline> {
  // Loaded when the command runs, so that `ferry --help` and the other commands do not pay for it.
  const { historyToJSON } =
    require('@temporalio/common/lib/proto-utils') as typeof import('@temporalio/common/lib/proto-utils');
  const history = JSON.parse(historyToJSON(await handle.fetchHistory())) as JsonHistory;
  return readHistory(workflowId, history);
}

/** Every run of a workflow that continued as new, oldest first, as one timeline. */
async function allRuns(client: Client, workflowId: string): Promise<WorkflowTimeline> {
  const runs = [await timelineOf(client.workflow.getHandle(workflowId), workflowId)];
  for (let previous = runs[0]!.continuedFrom; previous; previous = runs[0]!.continuedFrom) {
    runs.unshift(await timelineOf(client.workflow.getHandle(workflowId, previous), workflowId));
  }
  return joinRuns(runs);
}

/** The VM workflows of a wave or batch: those it started, and those its status lists. */
function childIds(parent: WorkflowTimeline, status: unknown): string[] {
  const s = (parent.result as { status?: unknown } | undefined)?.status ?? parent.result ?? status;
  // A wave's result holds its VMs as a table (packWaveStatus); a batch's result and a status query, as objects.
  const vms =
    s && typeof s === 'object' && 'vmTable' in s
      ? unpackWaveStatus(s as PackedWaveStatus).vms
      : (s as { vms?: Array<{ workflowId?: string }> } | undefined)?.vms;
  const listed = (vms ?? []).flatMap((v) => (v.workflowId ? [v.workflowId] : []));
  const started = parent.children
    .filter((c) => c.type === 'migrateVm' || c.type === 'provisionVm')
    .map((c) => c.workflowId);
  return [...new Set([...started, ...listed])];
}

/** A running parent's own status (refusals, approvals), when a worker is there to answer. */
async function runningStatus(client: Client, handle: WorkflowHandle): Promise<unknown> {
  // Loaded when the command runs, so that `ferry --help` and the other commands do not pay for it.
  const { workerPolls } = require('../worker-presence') as typeof import('../worker-presence');
  const description = await handle.describe();
  if (!(await workerPolls(client, description.taskQueue))) return undefined;
  return handle.query(anyStatusQuery).catch(() => undefined);
}

async function reportOf(client: Client, target: string, now: number): Promise<ReportModel> {
  // Loaded when the command runs, so that `ferry --help` and the other commands do not pay for it.
  const { resolveTarget } = require('../targets') as typeof import('../targets');
  const handle = await resolveTarget(client, target, ['wave', 'provision-planned']);
  const parent = await allRuns(client, handle.workflowId);
  const parentStatus = parent.state === 'running' ? await runningStatus(client, handle) : undefined;
  const ids = childIds(parent, parentStatus);
  const children: WorkflowTimeline[] = [];
  for (let i = 0; i < ids.length; i += FETCH_AT_ONCE) {
    const batch = await Promise.all(
      ids.slice(i, i + FETCH_AT_ONCE).map((id) =>
        allRuns(client, id).catch((err: unknown) => {
          // A VM the running wave lists as started whose workflow the server has not created yet (it does so
          // after the wave's task completes): not there yet, left out like a VM not started.
          if ((err as { code?: number }).code === GRPC_NOT_FOUND && parent.state === 'running') return undefined;
          console.error(`report: no history for ${id}: ${err instanceof Error ? err.message : String(err)}`);
          return undefined;
        }),
      ),
    );
    children.push(...batch.filter((c): c is WorkflowTimeline => c !== undefined));
  }
  return buildReport({ parent, children, parentStatus, now });
}
