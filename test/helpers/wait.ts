import type { Client } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';

const STARTED = proto.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED;

/**
 * Polls `probe` (in real time) until it gives a value; errors from the probe count as "not yet" (a
 * workflow that has not run its first task cannot answer a query). Fails with `what` after the timeout.
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 120_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** The first of the workflows whose activity of this type is running right now. */
export async function runningActivity(
  client: Client,
  workflowIds: string[],
  type: string,
): Promise<string | undefined> {
  for (const id of workflowIds) {
    const description = await client.workflow.getHandle(id).describe();
    if ((description.raw.pendingActivities ?? []).some((a) => a.activityType?.name === type && a.state === STARTED))
      return id;
  }
  return undefined;
}

/**
 * Like runningActivity, but only once every running activity of this type has a last heartbeat naming
 * the long task it waits for (`field` in its details: `task` for a vCenter task, `upid` for a Proxmox
 * one), so a retry of each can rejoin its task.
 */
export async function runningActivityWithTask(
  client: Client,
  workflowIds: string[],
  type: string,
  field: 'task' | 'upid',
): Promise<string | undefined> {
  let found: string | undefined;
  for (const id of workflowIds) {
    const description = await client.workflow.getHandle(id).describe();
    for (const a of description.raw.pendingActivities ?? []) {
      if (a.activityType?.name !== type || a.state !== STARTED) continue;
      const data = a.heartbeatDetails?.payloads?.[0]?.data;
      const details = data ? (JSON.parse(Buffer.from(data).toString('utf8')) as Record<string, unknown>) : undefined;
      const value = details?.[field];
      if (!(typeof value === 'string' && (field === 'task' || value.startsWith('UPID:')))) return undefined;
      found ??= id;
    }
  }
  return found;
}
