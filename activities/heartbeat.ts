import { activityInfo, Context, heartbeat } from '@temporalio/activity';
import { copyProgress, type ActivityProgress } from '../src/domain/status';
import type { TaskProgress } from '../src/proxmox';
import type { OperationProgress } from '../src/vsphere';

/** Progress of a long wait goes out as a heartbeat (the UI shows it; `ferry status --watch` prints it). */
export const beat = (details: unknown): void => heartbeat(details);

/** Typed progress (src/domain/status/progress.ts): what `ferry status --watch` draws as a bar. */
export const beatProgress = (progress: ActivityProgress): void => heartbeat(progress);

/**
 * A PVE task's progress as typed heartbeat: bytes and rate when its log reports a copy, and always its
 * UPID, which a retry rejoins (task-rejoin.ts).
 */
export function beatTask(phase: string): (progress: TaskProgress) => void {
  return (p) => beatProgress({ ...copyProgress(phase, p.elapsedMs, p.copied), upid: p.upid });
}

/** A vCenter operation's progress as typed heartbeat; its task is what a retry waits for. */
export function beatOperation(progress: OperationProgress): void {
  beatProgress({
    phase: progress.step,
    elapsedMs: progress.elapsedMs,
    ...(progress.percent !== undefined ? { percent: progress.percent } : {}),
    ...(progress.task !== undefined ? { task: progress.task } : {}),
  });
}

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
  const timer = setInterval(
    () => context.heartbeat({ running: what, forMs: Date.now() - since }),
    Math.max(100, Math.floor(timeoutMs / 3)),
  );
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}
