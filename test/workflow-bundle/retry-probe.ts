import { proxyActivities } from '@temporalio/workflow';

export interface RetriedActivityInput {
  activity: string;
  input: unknown;
}

/**
 * Runs one activity with two attempts, the second right after the first fails: for tests of what a
 * retry does after an attempt that was lost (its worker died) at a chosen point.
 */
export async function retriedActivity({ activity, input }: RetriedActivityInput): Promise<unknown> {
  const acts = proxyActivities<Record<string, (input: unknown) => Promise<unknown>>>({
    startToCloseTimeout: '5 minutes',
    heartbeatTimeout: '1 minute',
    retry: { initialInterval: '100 ms', maximumAttempts: 2 },
  });
  // Awaited here, so a stack trace query shows this function waiting (shared-workflow-thread.test.ts).
  return await acts[activity]!(input);
}
