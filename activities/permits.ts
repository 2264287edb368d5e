import { getClient } from '@temporalio/activity';
import { semaphoreWorkflowId, type PermitRequest } from '../src/domain/permits';
import { acquirePermitSignal, type SemaphoreWorkflow } from '../src/messages';
import { FerryKind } from '../src/domain/search-attributes';

export function createPermitActivities() {
  return {
    /** Queues a permit request at the semaphore for `key`, starting the semaphore if it is not running. */
    async requestPermit(input: { key: string; permits: number; taskQueue: string; request: PermitRequest }): Promise<void> {
      await getClient().workflow.signalWithStart<SemaphoreWorkflow, [PermitRequest]>('semaphore', {
        workflowId: semaphoreWorkflowId(input.key),
        taskQueue: input.taskQueue,
        args: [{ key: input.key, permits: input.permits }],
        signal: acquirePermitSignal,
        signalArgs: [input.request],
        typedSearchAttributes: [{ key: FerryKind, value: 'semaphore' }],
        staticSummary: `global limit ${input.key}`,
      });
    },
  };
}
