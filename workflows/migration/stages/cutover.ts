import { ApplicationFailure } from '@temporalio/workflow';
import { guestWritesAtRisk, verifySettingsOf, type MigrateVmResult } from '../../../src/domain/migration';
import { workflowNow } from '../../clock';
import type { MigrationRun } from '../run-context';
import { followMigrationSteps, type CutoverItinerary } from '../steps';
import { endCancelled } from './cancelled';
import { awaitDecision } from './decision';
import { currentDiskSources } from './disk-sources';
import { rollback } from './rollback';
import { GUEST_NOT_VERIFIED } from '../../vm/verify-guest';

/**
 * The approved cutover, as one segment: the disks as they are now (a VM changed since its approval, or
 * suspended, is refused before anything is touched), then the steps of the run's mode. A failure
 * waits for a person, who retries the segment (from the shutdown, then already off) or rolls back — or,
 * for a guest not verified with `migration.verify.onFailure: rollback`, ferry rolls back by itself (the
 * approval covered it). A cancel that came before the shutdown ends the run here; one during the
 * cutover is taken at the next safe point and waits for a person.
 */
export function cutover(itinerary: CutoverItinerary) {
  return async function cutoverSegment(run: MigrationRun): Promise<MigrateVmResult | undefined> {
    const sources = await currentDiskSources(run);
    if ('refusals' in sources) return run.refuse(sources.refusals);
    run.sources = sources.byslot;
    for (;;) {
      if (run.cancellation?.effect === 'stops-now') return endCancelled(run);
      try {
        return await followMigrationSteps(run, itinerary[run.settings.cutover.mode]);
      } catch (err) {
        if (rollsBackByItself(run, err)) return rollback(run);
        if ((await awaitDecision(run, err)) === 'rollback') return rollback(run);
      }
    }
  };
}

/** A guest not verified, and the settings say roll back: recorded as ferry's own decision, taken at once. */
function rollsBackByItself(run: MigrationRun, err: unknown): boolean {
  if (!(err instanceof ApplicationFailure && err.type === GUEST_NOT_VERIFIED)) return false;
  if (verifySettingsOf(run.settings).onFailure !== 'rollback') return false;
  run.failed(err);
  const reason = `the guest was not verified and migration.verify.onFailure is rollback (approved by ${run.status.approval?.by ?? 'the approval'})`;
  // The setting is the acknowledgement: with live-import, what the guest wrote on Proxmox goes with the VM.
  const discarded = guestWritesAtRisk(run.settings.cutover.mode, run.status)
    ? { discardedGuestWrites: true as const }
    : {};
  run.status.decisions.push({
    decision: 'rollback',
    by: 'ferry',
    reason,
    at: workflowNow(),
    via: 'setting',
    ...discarded,
  });
  return true;
}
