import type { Command } from 'commander';
import type { Client } from '@temporalio/client';
import type { FerryConfig } from '../../src/config';
import type { driftReport } from '../../workflows/drift-report';
import type { GlobalOptions } from '../client';
import { parseDailyTime } from '../at-time';
import { UsageError } from '../errors';

/** When the daily report runs without --at (UTC): before a working day starts in Europe. */
const DEFAULT_AT = '06:00';

interface DriftFlags {
  cluster?: string;
  tag?: string;
  json?: boolean;
  schedule?: string;
  at?: string;
  unschedule?: boolean;
  wait?: boolean;
}

/** What the flags ask for: a report now, the daily schedule, or its removal (usage errors exit 2). */
type DriftAction =
  | { kind: 'report'; cluster: string; tag?: string }
  | { kind: 'schedule'; cluster: string; tag?: string; at: { hour: number; minute: number } }
  | { kind: 'unschedule'; cluster: string };

export function driftActionOf(flags: DriftFlags): DriftAction {
  const cluster = flags.cluster?.trim();
  if (!cluster) throw new UsageError('say which cluster: ferry drift --cluster C [--tag T]');
  const tag = flags.tag ? { tag: flags.tag } : {};
  if (flags.unschedule) {
    if (flags.schedule !== undefined || flags.at !== undefined || flags.tag !== undefined || flags.json)
      throw new UsageError('--unschedule takes only --cluster: it deletes the schedule drift-<cluster>');
    return { kind: 'unschedule', cluster };
  }
  if (flags.schedule !== undefined) {
    if (flags.schedule !== 'daily') throw new UsageError(`--schedule: "${flags.schedule}" is not known; say daily`);
    if (flags.json) throw new UsageError('--json goes with a report, not with --schedule');
    return { kind: 'schedule', cluster, ...tag, at: parseDailyTime(flags.at ?? DEFAULT_AT) };
  }
  if (flags.at !== undefined) throw new UsageError('--at goes with --schedule daily');
  return { kind: 'report', cluster, ...tag };
}

export function registerDrift(program: Command): void {
  program
    .command('drift')
    .description(
      'day 2: where built VMs and their NetBox records differ, both ways (NetBox edits not in Proxmox, hand changes in Proxmox); writes nothing. Exit 1 when something drifts',
    )
    .option('--cluster <name>', 'the NetBox cluster whose built VMs are compared')
    .option('--tag <slug>', 'only its VMs with this NetBox tag')
    .option('--json', 'the report as JSON')
    .option('--wait', 'wait for a worker to poll the queue instead of failing at once')
    .option('--schedule <when>', 'instead of a report now: a Temporal Schedule drift-<cluster> that runs it (daily)')
    .option('--at <HH:MM>', 'with --schedule daily: the time of day, UTC (default 06:00)')
    .option('--unschedule', 'delete the schedule drift-<cluster>')
    .action(async (flags: DriftFlags, cmd: Command) => {
      const action = driftActionOf(flags);
      // Loaded when the command runs, so that `ferry --help` and the other commands do not pay for it.
      const { withClient } = require('../client') as typeof import('../client');
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      await withClient(globals, (client, config) => runDrift(client, config, action, flags));
    });
}

async function runDrift(client: Client, config: FerryConfig, action: DriftAction, flags: DriftFlags): Promise<void> {
  const schedules = require('../drift-schedule') as typeof import('../drift-schedule');
  if (action.kind === 'unschedule') {
    const outcome = await schedules.unscheduleDrift(client, action.cluster);
    return void console.log(`schedule ${schedules.driftScheduleId(action.cluster)}: ${outcome}`);
  }
  if (action.kind === 'schedule') {
    const { kind: _schedule, ...settings } = action;
    const outcome = await schedules.scheduleDrift(client, { ...settings, taskQueue: config.worker.taskQueue });
    const id = schedules.driftScheduleId(action.cluster);
    const at = `${String(action.at.hour).padStart(2, '0')}:${String(action.at.minute).padStart(2, '0')}`;
    return void console.log(`schedule ${id}: ${outcome} (driftReport daily at ${at} UTC)`);
  }
  await report(client, config.worker.taskQueue, action, flags);
}

async function report(
  client: Client,
  taskQueue: string,
  action: { cluster: string; tag?: string },
  flags: DriftFlags,
): Promise<void> {
  const { requireWorker } = require('../worker-presence') as typeof import('../worker-presence');
  const { awaitResult } = require('../workflow-result') as typeof import('../workflow-result');
  const { renderDriftReport, driftExitCode } = require('../render-drift') as typeof import('../render-drift');
  // The worker holds the NetBox token and the Proxmox credentials: it reads both sides for us.
  await requireWorker(client, taskQueue, { wait: Boolean(flags.wait), what: 'the drift report' });
  const stamp = new Date().toISOString().replace(/[:.]/g, '');
  const handle = await client.workflow.start<typeof driftReport>('driftReport', {
    taskQueue,
    workflowId: `drift-${action.cluster}-${stamp}`,
    args: [{ cluster: action.cluster, ...(action.tag ? { tag: action.tag } : {}) }],
    staticSummary: `ferry drift --cluster ${action.cluster}${action.tag ? ` --tag ${action.tag}` : ''}`,
  });
  const result = await awaitResult(handle);
  console.log(flags.json ? JSON.stringify(result, null, 2) : renderDriftReport(result).join('\n'));
  process.exitCode = driftExitCode(result);
}
