import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { eventMs } from './handoffs';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** One workflow task of a history: how long the worker held it, and what it had to go through. */
export interface WorkflowTaskTiming {
  runIndex: number;
  /** Event id of its WorkflowTaskStarted. */
  eventId: number;
  /** Scheduled → started: waiting for the worker. */
  queuedMs: number;
  /** Started → completed (or failed, timed out): the worker's work on it. */
  runningMs: number;
  /** Given to the worker that has the workflow cached (sticky), or to any worker (a full replay if not cached). */
  sticky: boolean;
  /** Events in the run up to this task: what a full replay would go through. */
  eventsBefore: number;
  ended: 'completed' | 'failed' | 'timed out' | 'not taken in time';
  /** Why a failed task failed (the server's cause, e.g. UNHANDLED_COMMAND: new events came while it ran). */
  failedBecause?: string;
}

/** Every workflow task of a workflow, over all its runs (continue-as-new chain), oldest first. */
export async function workflowTasks(
  client: Client,
  workflowId: string,
  firstRunId: string,
): Promise<WorkflowTaskTiming[]> {
  const tasks: WorkflowTaskTiming[] = [];
  let runId: string | undefined = firstRunId;
  for (let runIndex = 0; runId; runIndex++) {
    const events: HistoryEvent[] = (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
    tasks.push(...tasksOf(events, runIndex));
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return tasks;
}

function tasksOf(events: HistoryEvent[], runIndex: number): WorkflowTaskTiming[] {
  const byId = new Map<number, HistoryEvent>();
  const out: WorkflowTaskTiming[] = [];
  events.forEach((e, index) => {
    const id = Number(e.eventId);
    byId.set(id, e);
    const end =
      e.workflowTaskCompletedEventAttributes ??
      e.workflowTaskFailedEventAttributes ??
      e.workflowTaskTimedOutEventAttributes;
    if (!end) return;
    const scheduled = byId.get(Number(end.scheduledEventId));
    // A task no worker took in time (a sticky queue's schedule-to-start timeout) has no started event.
    const started =
      byId.get(Number(end.startedEventId)) ?? (scheduled && e.workflowTaskTimedOutEventAttributes ? e : undefined);
    if (!started || !scheduled) return;
    const kind = scheduled.workflowTaskScheduledEventAttributes?.taskQueue?.kind;
    const cause = e.workflowTaskFailedEventAttributes?.cause;
    out.push({
      runIndex,
      eventId: Number(started.eventId),
      queuedMs: eventMs(started) - eventMs(scheduled),
      runningMs: eventMs(e) - eventMs(started),
      sticky: kind === temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_STICKY,
      eventsBefore: index,
      ended: e.workflowTaskCompletedEventAttributes
        ? 'completed'
        : e.workflowTaskFailedEventAttributes
          ? 'failed'
          : started === e
            ? 'not taken in time'
            : 'timed out',
      ...(cause
        ? {
            failedBecause: temporal.api.enums.v1.WorkflowTaskFailedCause[cause].replace(
              /^WORKFLOW_TASK_FAILED_CAUSE_/,
              '',
            ),
          }
        : {}),
    });
  });
  return out;
}

/** A line per workflow task that ran at least `minMs`, and the totals. */
export function describeLongTasks(tasks: WorkflowTaskTiming[], minMs: number): string[] {
  const long = tasks.filter((t) => t.runningMs >= minMs || t.ended !== 'completed');
  const lines = long.map(
    (t) =>
      `run ${t.runIndex + 1}, task at event ${t.eventId}: ran ${t.runningMs} ms (queued ${t.queuedMs} ms), ${t.sticky ? 'sticky' : 'normal queue'}, ${t.eventsBefore} events before it, ${t.ended}${t.failedBecause ? ` (${t.failedBecause})` : ''}`,
  );
  const normal = tasks.filter((t) => !t.sticky).length;
  lines.push(
    `${tasks.length} workflow tasks in ${Math.max(0, ...tasks.map((t) => t.runIndex)) + 1} runs; ${normal} from the normal queue; ${long.length} ran ≥ ${minMs} ms or did not complete`,
  );
  return lines;
}
