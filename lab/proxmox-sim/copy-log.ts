import { formatBytes } from './format-bytes';
import type { TaskContext } from './tasks';

/** Progress lines a simulated copy logs over its duration, about one a second (at least four). */
const STEP_MS = 1_000;

/**
 * Waits `ms` as a copy of `bytes` would take and logs its progress as qemu-server does: a disk import's
 * `transferred 1.00 GiB of 10.00 GiB (10.00%)`, a live import's with the drive's job name before it.
 */
export async function simulateCopy(ctx: TaskContext, ms: number, bytes: number, drive?: string): Promise<void> {
  if (ms <= 0) return;
  const steps = Math.max(4, Math.ceil(ms / STEP_MS));
  const prefix = drive ? `${drive}: ` : '';
  for (let i = 1; i <= steps; i++) {
    await ctx.sleep(ms / steps);
    const percent = (100 * i) / steps;
    ctx.log(
      `${prefix}transferred ${formatBytes((bytes * i) / steps)} of ${formatBytes(bytes)} (${percent.toFixed(2)}%)`,
    );
  }
}
