import { getClient } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/common';
import type { MigrationOutcome, PreviousRun } from '../src/domain/migration';
import type { ClosedWorkflow, WorkflowWatchActivities } from './workflow-watch-contract';

/** Reads the state of workflows through the worker's Temporal client (no external system involved). */
export function createWorkflowWatchActivities(): WorkflowWatchActivities {
  return {
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

    async previousRun({ workflowId }: { workflowId: string }): Promise<PreviousRun> {
      const handle = getClient().workflow.getHandle(workflowId);
      try {
        const { status } = await handle.describe();
        if (status.name !== 'COMPLETED') return { status: status.name };
        const result: unknown = await handle.result();
        const outcome =
          result && typeof result === 'object' ? (result as { outcome?: MigrationOutcome }).outcome : undefined;
        return { status: status.name, ...(outcome ? { outcome } : {}) };
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
        return { status: 'NOT_FOUND' };
      }
    },
  };
}
