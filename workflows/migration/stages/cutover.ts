import type { MigrateVmResult } from '../../../src/domain/migration';
import type { MigrationRun } from '../run-context';
import { bootPveVm, setBootOrder } from './boot';
import { awaitDecision } from './decision';
import { currentDiskSources, type DiskSources } from './disk-sources';
import { importDisks } from './import-disks';
import { liveImport } from './live-import';
import { rollback } from './rollback';
import { shutdownGuest } from './shutdown';
import { verifySizes } from './verify';

/**
 * The approved cutover: the guest shuts down on VMware and its disks come into Proxmox. A failure
 * waits for a person, who retries (from the shutdown, then already off) or rolls back.
 */
export async function cutover(run: MigrationRun): Promise<MigrateVmResult | undefined> {
  const sources = await currentDiskSources(run);
  if ('refusals' in sources) return run.refuse(sources.refusals);
  const asked = new Set<string>(); // slots this execution has asked to import (any attempt)
  for (;;) {
    try {
      await shutdownGuest(run);
      await bringDisksIn(run, sources.byslot, asked);
      return undefined;
    } catch (err) {
      if ((await awaitDecision(run, err)) === 'rollback') return rollback(run);
    }
  }
}

/** import: each disk, verify, boot order, start if asked. live-import: one create that boots at once, verify. */
async function bringDisksIn(run: MigrationRun, sources: DiskSources, asked: Set<string>): Promise<void> {
  run.enter('import');
  if (run.settings.cutover.mode === 'live-import') {
    await liveImport(run, sources);
    await verifySizes(run);
    return;
  }
  await importDisks(run, sources, asked);
  await verifySizes(run);
  await setBootOrder(run);
  if (run.settings.cutover.startAfter) await bootPveVm(run);
}
