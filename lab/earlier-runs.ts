import type { Client } from '@temporalio/client';

export const EARLIER_RUN_REASON =
  'ferry lab: left running by an earlier lab run; the lab starts its simulators afresh, so nothing it waits for exists any more';

/**
 * The lab keeps Temporal's history across runs (the UI shows earlier waves), but its simulators, NetBox
 * and BIND start afresh. A workflow an earlier run left open waits for VMs that no longer exist, and the
 * long-lived ones share ids with the new run: a `semaphore-vm-start` from an older ferry, whose history
 * the current code no longer replays, took every new run's permit requests and never answered (the lab
 * hung at its first VM start). So before its worker starts, the lab terminates what was left running,
 * with a reason; `extraQuery` narrows the list (tests, on a shared server).
 */
export async function closeEarlierLabRuns(client: Client, extraQuery?: string): Promise<string[]> {
  const query = ['ExecutionStatus="Running"', ...(extraQuery ? [extraQuery] : [])].join(' AND ');
  const closed: string[] = [];
  for await (const w of client.workflow.list({ query })) {
    await client.workflow
      .getHandle(w.workflowId, w.runId)
      .terminate(EARLIER_RUN_REASON)
      .then(
        () => closed.push(w.workflowId),
        // Ended in between: nothing to close.
        (err: unknown) => {
          if ((err as { name?: string }).name !== 'WorkflowNotFoundError') throw err;
        },
      );
  }
  return closed;
}

/** The lab's line about them, or nothing when none was left. */
export function describeClosed(closed: readonly string[]): string | undefined {
  if (closed.length === 0) return undefined;
  const shown = closed.slice(0, 6).join(', ');
  const more = closed.length > 6 ? ` and ${closed.length - 6} more` : '';
  return `lab: terminated ${closed.length} workflow(s) an earlier lab run left running (its simulators are gone): ${shown}${more}`;
}
