import { workflowInfo } from '@temporalio/workflow';
import { mainQueueOf } from '../src/domain/task-queues';

/**
 * The main queue of this workflow's deployment: the queue it runs on, or, for a coordination workflow
 * (wave, semaphore, allocator, provisionPlanned on `<main>-coordination`), the main queue beside it.
 * VM workflows, heavy queues and semaphore keys derive from it.
 */
export function mainQueue(): string {
  return mainQueueOf(workflowInfo().taskQueue);
}
