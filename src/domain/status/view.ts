import { z } from 'zod';
import { activityProgressSchema } from './progress';
import { waveSummarySchema } from './wave-summary';

/** An activity that runs now, with its typed progress (or the raw heartbeat of an older worker). */
export const runningActivitySchema = z.object({
  activity: z.string(),
  attempt: z.number(),
  progress: activityProgressSchema.optional(),
  /** The heartbeat when it is not typed progress (short waits, reads). */
  details: z.unknown().optional(),
});
export type RunningActivity = z.infer<typeof runningActivitySchema>;

/**
 * What `ferry status --json` prints (docs/cli.md). A wave answers with its summary (one page of rows)
 * and the running activities of the VMs on that page; any other workflow with its own status.
 */
export const statusViewSchema = z.object({
  workflowId: z.string(),
  type: z.string(),
  /** Temporal's execution status: RUNNING, COMPLETED, FAILED, … */
  state: z.string(),
  /** A wave's summary (src/domain/status/wave-summary.ts). */
  wave: waveSummarySchema.optional(),
  /** A wave's VMs on this page: their running activities, by workflow id. */
  vmActivities: z.record(z.string(), z.array(runningActivitySchema)).optional(),
  /** The workflow's own status (MigrationStatus, ProvisionStatus, …; a wave's only when asked with --full). */
  status: z.record(z.string(), z.unknown()).optional(),
  result: z.unknown().optional(),
  progress: z.array(runningActivitySchema),
  /** The task queue no worker polls, when the status needed one (it was then not asked). */
  noWorker: z.string().optional(),
});
export type StatusView = z.infer<typeof statusViewSchema>;
