import { ApplicationFailure } from '@temporalio/workflow';
import {
  guestChecked,
  guestWritesAtRisk,
  LEFT_STOPPED,
  verifySettingsOf,
  type MigrateVmResult,
} from '../../../src/domain/migration';
import { workflowNow } from '../../clock';
import type { MigrationRun } from '../run-context';
import { bootPveVm, setBootOrder } from './boot';
import { convertGuest, removeOverlays } from './convert';
import { awaitDecision } from './decision';
import { currentDiskSources, type DiskSources } from './disk-sources';
import { importDisks } from './import-disks';
import { liveImport } from './live-import';
import { runFromOverlays } from './overlay';
import { endCancelled } from './cancelled';
import { registerHa } from './ha';
import { recheckPlacement } from './recheck';
import { rollback } from './rollback';
import { atSafePoint } from './safe-point';
import { shutdownGuest } from './shutdown';
import { verifySizes } from './verify';
import { GUEST_NOT_VERIFIED, verifyGuest } from './verify-guest';

/**
 * The approved cutover: the guest shuts down on VMware, is converted (when migration.conversion says
 * so) on overlays of its disks, its disks come into Proxmox and, when ferry starts the VM, the guest is
 * proven up. A failure waits for a person, who retries (from the shutdown,
 * then already off) or rolls back — or, for a guest not verified with `migration.verify.onFailure:
 * rollback`, ferry rolls back by itself (the approval covered it). A cancel that came before the shutdown
 * ends the run here; one during the cutover waits for a person at the next safe point.
 */
export async function cutover(run: MigrationRun): Promise<MigrateVmResult | undefined> {
  const sources = await currentDiskSources(run);
  if ('refusals' in sources) return run.refuse(sources.refusals);
  const asked = new Set<string>(); // slots this execution has asked to import (any attempt)
  for (;;) {
    if (run.cancellation?.effect === 'stops-now') return endCancelled(run);
    try {
      await recheckPlacement(run);
      await shutdownGuest(run);
      atSafePoint(run);
      const converted = await convertGuest(run, sources.byslot);
      atSafePoint(run);
      await bringDisksIn(run, converted, asked);
      // The disks are in Proxmox: the overlays served their purpose (overlay mode runs from them until its moves).
      if (run.settings.cutover.mode !== 'overlay') await removeOverlays(run);
      return undefined;
    } catch (err) {
      if (rollsBackByItself(run, err)) return rollback(run);
      if ((await awaitDecision(run, err)) === 'rollback') return rollback(run);
    }
  }
}

/**
 * import: each disk, sizes, boot order, and if asked start and verify the guest (else it is left
 * stopped, not verified). live-import: one create that boots at once, sizes, verify the guest.
 * overlay: the overlays attached, sizes, boot order, start, verify the guest (its disks move after).
 */
async function bringDisksIn(run: MigrationRun, sources: DiskSources, asked: Set<string>): Promise<void> {
  run.enter('import');
  if (run.settings.cutover.mode === 'overlay') {
    await runFromOverlays(run, sources);
    await verifyStarted(run);
    await registerHa(run);
    return;
  }
  if (run.settings.cutover.mode === 'live-import') {
    await liveImport(run, sources);
    await verifySizes(run);
    await verifyStarted(run);
    await registerHa(run);
    return;
  }
  await importDisks(run, sources, asked);
  await verifySizes(run);
  await setBootOrder(run);
  atSafePoint(run);
  if (!run.settings.cutover.startAfter) {
    run.status.verification = LEFT_STOPPED;
    return;
  }
  await bootPveVm(run);
  await verifyStarted(run);
  await registerHa(run); // a VM left stopped is not registered: HA would start it
}

async function verifyStarted(run: MigrationRun): Promise<void> {
  const checked = guestChecked(run.vm.assessment.name, verifySettingsOf(run.settings));
  if (checked === 'check') await verifyGuest(run);
  else run.status.verification = checked;
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
