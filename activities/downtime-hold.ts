import { activityInfo } from '@temporalio/activity';
import type { ConversionYield } from '../src/conversion/yield-to-cutovers';
import { isDowntimeWork } from '../src/domain/task-queues';
import { wrapEach } from './wrap-each';

/** The priority of the activity this code runs in; none outside an activity (a unit test calling it directly). */
function currentPriority(): { priorityKey?: number } | undefined {
  try {
    return activityInfo().priority;
  } catch {
    return undefined;
  }
}

/**
 * Wraps every activity so that one scheduled as a VM's downtime work (DOWNTIME_PRIORITY) holds this
 * worker's conversions paused while it runs: the cutover gets the host's CPU, the conversion waits
 * seconds (see src/conversion/yield-to-cutovers.ts). Without `conversions` the activities are as given.
 */
export function withDowntimeHold<T extends Record<string, (...args: never[]) => Promise<unknown>>>(
  activities: T,
  conversions: ConversionYield | undefined,
): T {
  if (!conversions) return activities;
  return wrapEach(activities, async (call) => {
    if (!isDowntimeWork(currentPriority())) return await call();
    const release = conversions.hold();
    try {
      return await call();
    } finally {
      release();
    }
  });
}
