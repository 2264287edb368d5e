import {
  ActivityCancellationType,
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
} from '@temporalio/workflow';
import { diskStorage } from '../../../src/domain/placement';
import type { MigrateVmResult, MoveRecord } from '../../../src/domain/migration';
import { underPermit } from '../../vm/permit';
import type { MigrationRun } from '../run-context';
import { awaitDecision } from './decision';
import { importPermit } from './import-permit';
import { rollback } from './rollback';

/**
 * overlay: once the guest runs verified on its overlays, each disk moves live to its storage (PVE
 * move_disk: drive-mirror while the VM runs, the overlay deleted once the VM runs on the copy), under
 * the import permit. A move that fails is retried by its activity; one that keeps failing leaves the VM
 * running on its overlay, nothing lost, and waits for a person: retry (the move, never the cutover) or
 * roll back. A rollback may also come while the disks move (acknowledging the guest's writes on
 * Proxmox): the move is cancelled first. At the end no disk refers to the migration datastore.
 */
export async function moveDisks(run: MigrationRun): Promise<MigrateVmResult | undefined> {
  for (let attempt = 0; ; attempt++) {
    if (attempt > 0) run.enter('move'); // again, after a decision to retry
    run.gate.openDecision(['rollback']);
    const moving = new CancellationScope();
    const moves = moving.run(() => moveAll(run));
    const decided = condition(() => run.gate.hasDecision).then(() => 'decided' as const);
    let outcome: 'moved' | 'decided';
    try {
      outcome = await Promise.race([moves.then(() => 'moved' as const), decided]);
    } catch (err) {
      if ((await awaitDecision(run, err)) === 'rollback') return rollback(run);
      continue; // retry: the moves again
    }
    if (outcome === 'decided') {
      // Only a rollback is taken while the disks move: the move is cancelled, the rollback follows.
      moving.cancel();
      await moves.catch(() => undefined);
      run.gate.takeDecision();
      return rollback(run);
    }
    run.gate.closeDecision();
    return undefined;
  }
}

async function moveAll(run: MigrationRun): Promise<void> {
  const { assessment, vmid } = run.vm;
  const vm = assessment.pveName;
  for (const record of run.status.moves ?? []) {
    if (record.volume) continue;
    const storage = diskStorage(run.settings, assessment.disks.find((d) => d.slot === record.slot)!.source);
    record.storage = storage;
    try {
      const moved = await underPermit(run, importPermit(run, `move ${vm} ${record.slot}`), async () => {
        // A rollback while moving waits for the move task to be stopped (it holds the VM's lock).
        const cancellationType = ActivityCancellationType.WAIT_CANCELLATION_COMPLETED;
        return await run.acts
          .longCopy('import', run.settings.cutover.importTimeoutMs)
          .moveDisk.executeWithOptions(
            { summary: `move ${record.slot} of ${vm} live to ${storage}`, cancellationType },
            [
              {
                node: run.settings.node,
                vmid,
                slot: record.slot,
                storage,
                ...(run.settings.cutover.moveBandwidthMiBps
                  ? { bandwidthMiBps: run.settings.cutover.moveBandwidthMiBps }
                  : {}),
              },
            ],
          );
      });
      Object.assign(record, {
        volume: moved.volume,
        bytes: moved.bytes,
        seconds: moved.seconds,
        attempts: record.attempts + moved.attempt,
      } satisfies Partial<MoveRecord>);
      run.record({ kind: 'move-disk', vm, vmid, slot: record.slot, storage });
    } catch (err) {
      if (!isCancellation(err)) record.attempts += 1;
      throw err;
    }
  }
  await checkNothingOnOverlays(run);
}

/** The moves are done only when the VM's config names no volume on the storage the overlays were on. */
async function checkNothingOnOverlays(run: MigrationRun): Promise<void> {
  const storage = run.status.overlays?.storage;
  if (!storage) return;
  const config = await run.acts.read.readPveConfig.executeWithOptions(
    { summary: `read VM ${run.vm.vmid}'s config: no disk left on ${storage}` },
    [{ node: run.settings.node, vmid: run.vm.vmid }],
  );
  const left = Object.entries(config).filter(
    ([key, value]) => /^(scsi|sata|ide|virtio|unused)\d+$/.test(key) && String(value).startsWith(`${storage}:`),
  );
  if (left.length > 0) {
    const what = left.map(([k, v]) => `${k}=${String(v)}`).join(', ');
    throw ApplicationFailure.create({
      type: 'DiskLeftOnOverlay',
      message: `VM ${run.vm.vmid} still has ${what} on ${storage} after its moves`,
      nonRetryable: true,
    });
  }
}
