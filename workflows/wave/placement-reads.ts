import { proxyActivities } from '@temporalio/workflow';
import type { PlacementActivities } from '../../activities/placement/contract';

/** Placement's reads: short, retried like every read. */
export const placementReads = proxyActivities<PlacementActivities>({
  startToCloseTimeout: '2m',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '1m', maximumAttempts: 10 },
});
