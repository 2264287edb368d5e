import {
  WorkflowNotFoundError,
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowExecutionInfo,
  type WorkflowHandle,
} from '@temporalio/client';

/** A string literal for a visibility query. */
export function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * The visibility query for a target that is not a workflow id: the wave with that id (not its VM
 * workflows, which carry the WaveId too), or the workflows of the VM with that name.
 */
export function targetQuery(target: string, kinds?: readonly string[]): string {
  const kindFilter = kinds?.length ? ` AND FerryKind IN (${kinds.map(quote).join(', ')})` : '';
  return `((FerryKind = 'wave' AND WaveId = ${quote(target)}) OR VmName = ${quote(target)})${kindFilter}`;
}

/**
 * Finds the workflow a user means: a workflow id if one exists; otherwise a wave id or VM name, looked
 * up in visibility (running first, else the most recent). Several running matches are an error that
 * lists them.
 */
export async function resolveTarget(
  client: Client,
  target: string,
  kinds?: readonly string[],
): Promise<WorkflowHandle> {
  return (await resolveDescribedTarget(client, target, kinds)).handle;
}

/** A resolved target, with the description read when the target was a workflow id (one RPC a caller need not repeat). */
export interface DescribedTarget {
  handle: WorkflowHandle;
  description?: WorkflowExecutionDescription;
}

/** resolveTarget, keeping the description its workflow-id lookup read (`ferry status` shows it). */
export async function resolveDescribedTarget(
  client: Client,
  target: string,
  kinds?: readonly string[],
): Promise<DescribedTarget> {
  const direct = client.workflow.getHandle(target);
  try {
    return { handle: direct, description: await direct.describe() };
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
  }
  const query = targetQuery(target, kinds);
  const matches: WorkflowExecutionInfo[] = [];
  for await (const wf of client.workflow.list({ query, pageSize: 50 })) {
    matches.push(wf);
    if (matches.length >= 50) break;
  }
  if (matches.length === 0)
    throw new Error(`no ferry workflow found for "${target}" (neither a workflow id nor in visibility: ${query})`);
  const running = matches.filter((m) => m.status.name === 'RUNNING');
  if (running.length > 1) {
    throw new Error(
      `"${target}" matches several running workflows; name one:\n${running.map((m) => `  ${m.workflowId} (${m.type})`).join('\n')}`,
    );
  }
  const chosen = running[0] ?? [...matches].sort((a, b) => b.startTime.getTime() - a.startTime.getTime())[0]!;
  return { handle: client.workflow.getHandle(chosen.workflowId) };
}
