import type { Client, WorkflowExecutionInfo, WorkflowHandle } from '@temporalio/client';

const WORKFLOW_ID_PREFIXES = ['migrate-', 'wave-', 'provision-', 'teardown-', 'semaphore-', 'doctor-', 'plan-', 'sdn-'];

function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * Finds the workflow a user means: a workflow id as is; otherwise a VM name or wave id, looked up in
 * visibility (running first, else the most recent). Several running matches are an error that lists them.
 */
export async function resolveTarget(client: Client, target: string, kinds?: string[]): Promise<WorkflowHandle> {
  if (WORKFLOW_ID_PREFIXES.some((p) => target.startsWith(p))) return client.workflow.getHandle(target);
  const kindFilter = kinds?.length ? ` AND FerryKind IN (${kinds.map(quote).join(', ')})` : '';
  const query = `(VmName = ${quote(target)} OR WaveId = ${quote(target)})${kindFilter}`;
  const matches: WorkflowExecutionInfo[] = [];
  for await (const wf of client.workflow.list({ query, pageSize: 50 })) {
    matches.push(wf);
    if (matches.length >= 50) break;
  }
  if (matches.length === 0) throw new Error(`no ferry workflow found for "${target}" (query: ${query})`);
  const running = matches.filter((m) => m.status.name === 'RUNNING');
  if (running.length > 1) {
    throw new Error(`"${target}" matches several running workflows; name one:\n${running.map((m) => `  ${m.workflowId} (${m.type})`).join('\n')}`);
  }
  const chosen = running[0] ?? [...matches].sort((a, b) => b.startTime.getTime() - a.startTime.getTime())[0]!;
  return client.workflow.getHandle(chosen.workflowId);
}
