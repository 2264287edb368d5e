import { ApplicationFailure } from '@temporalio/workflow';
import { diskStorage, placementVm, recheckAtCutover } from '../../../src/domain/placement';
import type { MigrationRun } from '../run-context';

/** Whether a wave placed the VM (node and disk storages): then its room is checked again before the shutdown. */
export function wavePlaced(run: MigrationRun): boolean {
  return run.settings.placement !== undefined && run.settings.diskStorages !== undefined;
}

/** The failure type of a VM that no longer fits where its wave placed it. */
export const PLACEMENT_NO_LONGER_FITS = 'PlacementNoLongerFits';

/**
 * Just before the shutdown: does the VM still fit where its wave placed it? Someone may have used the
 * node's memory or the storage's room since planning. If not, the cutover fails with the numbers and
 * waits for a person (retry once there is room, or roll back), before the guest is touched.
 */
export async function recheckPlacement(run: MigrationRun): Promise<undefined> {
  const { settings } = run;
  const { assessment, snapshot } = run.vm;
  const vm = placementVm(snapshot.vm);
  const imported = new Set(run.status.imports.map((i) => i.disk));
  const capacity = await run.acts.read.readClusterCapacity.executeWithOptions(
    { summary: `re-check room for ${assessment.pveName} on ${settings.node}` },
    [{ exclude: [] }],
  );
  const checked = recheckAtCutover({
    vm,
    placed: {
      node: settings.node,
      // A disk an earlier attempt imported takes its room already.
      disks: vm.disks
        .filter((d) => !imported.has(d.label))
        .map((d) => ({
          label: d.label,
          datastore: d.datastore,
          capacityBytes: d.capacityBytes,
          storage: diskStorage(settings, d.label),
          storageBy: 'placement',
        })),
    },
    nodes: capacity.nodes,
    storages: capacity.storages,
    maxMemoryCommit: settings.placement!.maxMemoryCommit,
    // The shell is on the node: its maxmem is in the node's committed memory already.
    shellOnNode: true,
  });
  if (checked.ok) return undefined;
  const reasons = checked.refusals.map((r) => r.reason).join('; ');
  throw ApplicationFailure.nonRetryable(
    `${assessment.pveName} no longer fits where it was placed: ${reasons}`,
    PLACEMENT_NO_LONGER_FITS,
  );
}
