import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/**
 * What each workflow still running at the end of a run waits for, one line per wait: its activities
 * (attempt, last failure), its children, and a workflow task that keeps failing (with the failure) —
 * so a run that ends with VMs without an outcome says why in its own log, where CI shows it.
 */
export async function stillRunning(client: Client, limit = 40): Promise<string[]> {
  const lines: string[] = [];
  let listed = 0;
  for await (const w of client.workflow.list({ query: `ExecutionStatus = 'Running'` })) {
    if (++listed > limit) {
      lines.push(`  … more than ${limit} running`);
      break;
    }
    const handle = client.workflow.getHandle(w.workflowId, w.runId);
    const description = await handle.describe().catch((err: unknown) => err as Error);
    if (description instanceof Error) {
      lines.push(`  ${w.workflowId} (${w.type}): describe failed: ${description.message}`);
      continue;
    }
    const raw = description.raw;
    const waits: string[] = [];
    for (const a of raw.pendingActivities ?? []) {
      const failure = a.lastFailure?.message ? `, last failure: ${a.lastFailure.message.slice(0, 200)}` : '';
      waits.push(`activity ${a.activityType?.name} (${stateName(a.state)}, attempt ${a.attempt ?? 1}${failure})`);
    }
    for (const c of raw.pendingChildren ?? []) waits.push(`child ${c.workflowId} (${c.workflowTypeName})`);
    const task = raw.pendingWorkflowTask;
    if (task && (task.attempt ?? 1) > 1)
      waits.push(`workflow task failing (attempt ${task.attempt}): ${await lastTaskFailure(client, w.workflowId)}`);
    lines.push(
      `  ${w.workflowId} (${w.type}): ${waits.join('; ') || 'no activity, child or failing task: a timer, a signal or an update'}`,
    );
  }
  return lines;
}

function stateName(state: number | null | undefined): string {
  const name = temporal.api.enums.v1.PendingActivityState[state ?? 0] ?? String(state);
  return name.replace('PENDING_ACTIVITY_STATE_', '').toLowerCase();
}

async function lastTaskFailure(client: Client, workflowId: string): Promise<string> {
  try {
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    const failed = (history.events ?? []).filter((e) => e.workflowTaskFailedEventAttributes);
    const message = failed.at(-1)?.workflowTaskFailedEventAttributes?.failure?.message;
    return message ? message.slice(0, 300) : '(no failure in the history: the task times out)';
  } catch (err) {
    return `(history unreadable: ${(err as Error).message})`;
  }
}
