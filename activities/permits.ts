import { getClient } from '@temporalio/activity';
import { semaphoreWorkflowId, type PermitRequest } from '../src/domain/permits';
import { acquirePermitSignal, type SemaphoreWorkflow } from '../src/domain/messages';
import { FerryKind } from '../src/domain/search-attributes';
import { coordinationQueue, mainQueueOf } from '../src/domain/task-queues';

/** The activity withPermit (workflows/permits.ts) calls. */
export interface PermitActivities {
  /**
   * Queues a permit request at the semaphore for `key`, starting the semaphore if it is not running, on
   * the coordination queue beside `taskQueue` (the main queue).
   */
  requestPermit(input: { key: string; permits: number; taskQueue: string; request: PermitRequest }): Promise<void>;
}

export function createPermitActivities(): PermitActivities {
  return {
    async requestPermit(input) {
      await getClient().workflow.signalWithStart<SemaphoreWorkflow, [PermitRequest]>('semaphore', {
        workflowId: semaphoreWorkflowId(input.key),
        taskQueue: coordinationQueue(mainQueueOf(input.taskQueue)),
        args: [{ key: input.key, permits: input.permits }],
        signal: acquirePermitSignal,
        signalArgs: [input.request],
        typedSearchAttributes: [{ key: FerryKind, value: 'semaphore' }],
        staticSummary: `global limit ${input.key}`,
      });
    },
  };
}
