import type { CutoverMode, MigrateVmResult, MigrationStage } from '../../src/domain/migration';
import { followSteps, type Step } from '../vm/steps';
import type { MigrationRun } from './run-context';
import { atSafePoint } from './stages/safe-point';
import { stopOnCancel } from './stop-on-cancel';

/** A step of a migration's itinerary (workflows/migrate-vm.ts). */
export type MigrationStep = Step<MigrationRun, MigrationStage, MigrateVmResult> & {
  /** `ferry cancel` stops the step where it is and ends the run (every step before the cutover). */
  stopsOnCancel?: boolean;
  /** A cancel during the cutover is taken right after this step: the guest is down, or its disks are in but not started. */
  safePoint?: boolean;
  /**
   * Seconds of ferry's own work inside the VM's downtime (the shutdown to the start): its activities run at
   * the downtime priority, and the worker running one pauses its conversions meanwhile (MigrationRun.inDowntime).
   */
  downtime?: boolean;
};

/** The cutover's steps for each mode: a new mode is a new list. */
export type CutoverItinerary = Record<CutoverMode, readonly MigrationStep[]>;

/** Runs migration steps in order, each stopped by a cancel or followed by a safe point as it says. */
export function followMigrationSteps(
  run: MigrationRun,
  steps: readonly MigrationStep[],
): Promise<MigrateVmResult | undefined> {
  return followSteps(run, steps, async (step, go) => {
    const work = step.downtime ? () => run.inDowntime(go) : go;
    const ended = step.stopsOnCancel ? await stopOnCancel(run, work) : await work();
    if (step.safePoint && ended === undefined) atSafePoint(run);
    return ended;
  });
}
