import { activityInfo, Context, heartbeat } from '@temporalio/activity';

/** Progress of a long wait goes out as a heartbeat (the UI shows it; `ferry status --watch` prints it). */
export const beat = (details: unknown): void => heartbeat(details);

/**
 * Heartbeats every third of the activity's heartbeat timeout while `work` runs. For reads whose one
 * call grows with the estate and reports no progress itself: the heartbeat tells a slow read from one
 * lost with its worker, so the read needs no short start-to-close timeout.
 */
export async function beatWhile<T>(what: string, work: Promise<T>): Promise<T> {
  const timeoutMs = activityInfo().heartbeatTimeoutMs;
  if (!timeoutMs) return work;
  const context = Context.current();
  const since = Date.now();
  const timer = setInterval(() => context.heartbeat({ running: what, forMs: Date.now() - since }), Math.max(100, Math.floor(timeoutMs / 3)));
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}
