import { WorkflowFailedError, type WorkflowHandle, type Workflow, type WorkflowResultType } from '@temporalio/client';

/** The innermost cause's message: a failed activity's error, not "Workflow execution failed". */
export function rootCauseMessage(err: unknown): string {
  let current: unknown = err;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}

/** Awaits a workflow's result; a failed workflow becomes an error naming it and its root cause. */
export async function awaitResult<W extends Workflow>(handle: WorkflowHandle<W>): Promise<WorkflowResultType<W>> {
  try {
    return await handle.result();
  } catch (err) {
    if (err instanceof WorkflowFailedError) throw new Error(`${handle.workflowId} failed: ${rootCauseMessage(err)}`);
    throw err;
  }
}
