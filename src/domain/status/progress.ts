import { z } from 'zod';

/**
 * What a long activity heartbeats (vMotion, disk import, live import): typed progress a person can
 * read, plus the task it waits for, which a retry after a lost worker rejoins (`task`: the vCenter
 * task, `upid`: the PVE task).
 */
export const activityProgressSchema = z.object({
  /** `relocate`, `import`, `live-import`, or the step of a shorter wait (`shutdown-guest`, `qmstart`, …). */
  phase: z.string(),
  /** Bytes copied so far and in all, when the engine reports them (vcsim's relocations do not). */
  bytesDone: z.number().nonnegative().optional(),
  bytesTotal: z.number().nonnegative().optional(),
  /** Percent done: from the bytes, or as vCenter reports it for a task without byte counts. */
  percent: z.number().min(0).max(100).optional(),
  /** Mean rate since the copy started. */
  bytesPerSecond: z.number().nonnegative().optional(),
  elapsedMs: z.number().nonnegative(),
  /** The vCenter task (`task-123`) a retry waits for instead of starting a second vMotion. */
  task: z.string().optional(),
  /** The PVE task a retry rejoins instead of colliding with its lock. */
  upid: z.string().optional(),
  /** An earlier attempt's task that failed or was forgotten: not rejoined again. */
  earlierTask: z.string().optional(),
  earlierError: z.string().optional(),
});
export type ActivityProgress = z.infer<typeof activityProgressSchema>;

/** Progress from a copy's figures: the mean rate once anything was copied. */
export function copyProgress(
  phase: string,
  elapsedMs: number,
  bytes?: { done: number; total: number },
): ActivityProgress {
  if (!bytes) return { phase, elapsedMs };
  const seconds = elapsedMs / 1000;
  const bytesPerSecond = seconds > 0 && bytes.done > 0 ? Math.round(bytes.done / seconds) : undefined;
  const percent = bytes.total > 0 ? Math.min(100, (100 * bytes.done) / bytes.total) : undefined;
  return {
    phase,
    elapsedMs,
    bytesDone: bytes.done,
    bytesTotal: bytes.total,
    ...(percent !== undefined ? { percent } : {}),
    ...(bytesPerSecond !== undefined ? { bytesPerSecond } : {}),
  };
}

/** Seconds until the copy ends at its mean rate; undefined while the rate is unknown. */
export function progressEtaSeconds(
  progress: Pick<ActivityProgress, 'bytesDone' | 'bytesTotal' | 'bytesPerSecond'>,
): number | undefined {
  const { bytesDone, bytesTotal, bytesPerSecond } = progress;
  if (bytesDone === undefined || bytesTotal === undefined || !bytesPerSecond) return undefined;
  return Math.max(0, (bytesTotal - bytesDone) / bytesPerSecond);
}

/** The heartbeat details as ActivityProgress, or undefined for other shapes (older workers, short waits). */
export function readProgress(details: unknown): ActivityProgress | undefined {
  const parsed = activityProgressSchema.safeParse(details);
  return parsed.success ? parsed.data : undefined;
}
