import { proxyActivities } from '@temporalio/workflow';
import type { WorkflowWatchActivities } from '../../activities/workflow-watch-contract';

/** Reads of other workflows' state (the wave's VM workflows) through the worker's Temporal client. */
export const watch = proxyActivities<WorkflowWatchActivities>({
  startToCloseTimeout: '1m',
  retry: { initialInterval: '2s', maximumInterval: '1m', maximumAttempts: 5 },
});
