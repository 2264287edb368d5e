import { getClient } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/common';

export interface ClosedWorkflow {
  workflowId: string;
  /** How it closed: COMPLETED, FAILED, CANCELLED, TERMINATED, TIMED_OUT, … */
  status: string;
}

/** Reads the state of workflows through the worker's Temporal client (no external system involved). */
export function createWorkflowWatchActivities() {
  return {
    /** Those of `workflowIds` whose latest run is closed (or that do not exist), with how they closed. */
    async closedWorkflows({ workflowIds }: { workflowIds: string[] }): Promise<ClosedWorkflow[]> {
      const client = getClient();
      const closed: ClosedWorkflow[] = [];
      for (const workflowId of workflowIds) {
        try {
          const { status } = await client.workflow.getHandle(workflowId).describe();
          if (status.name !== 'RUNNING') closed.push({ workflowId, status: status.name });
        } catch (err) {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
          closed.push({ workflowId, status: 'NOT_FOUND' }); // gone from retention: closed long ago
        }
      }
      return closed;
    },
  };
}
