import { getClient } from '@temporalio/activity';
import type { TeardownResult } from '../../src/domain/provisioning';
import type { TeardownActivities } from '../provisioning-contract';

/** Temporal's record of an earlier run of the same teardown, so a rerun finishes what it left. */
export function createPreviousRunActivities(): Pick<TeardownActivities, 'previousTeardown'> {
  return {
    async previousTeardown({ workflowId, runId }) {
      const client = getClient();
      const runs = [];
      for await (const wf of client.workflow.list({ query: `WorkflowId = '${workflowId}' AND RunId != '${runId}'` }))
        runs.push(wf);
      const last = runs.sort((a, b) => b.startTime.getTime() - a.startTime.getTime())[0];
      if (!last || last.status.name !== 'COMPLETED') return undefined;
      const result = (await client.workflow.getHandle(workflowId, last.runId).result()) as TeardownResult;
      return result.outcome === 'incomplete' ? result.target : undefined;
    },
  };
}
