import type { MigrationActivities, VmSnapshot, WaveSelection } from '../../activities/migration-contract';
import {
  assessInventory,
  migrateVmWorkflowId,
  selectionSummary,
  type InventoryAssessment,
  type MigrationSettings,
} from '../../src/domain/migration';
import { estateReads } from '../migration/proxies';
import type { WaveState } from './state';

type Discovery = Awaited<ReturnType<MigrationActivities['discoverWave']>>;

/**
 * One discovery and one assessment for the whole wave: each translatable VM joins the wave as pending,
 * with the snapshot its workflow will start from; each refused one is recorded with its reasons.
 */
export async function discover(wave: WaveState, selection: WaveSelection, settings: MigrationSettings): Promise<InventoryAssessment> {
  const discovered = await estateReads(settings.heartbeatTimeoutMs).discoverWave.executeWithOptions(
    { summary: `discover ${selectionSummary(selection)}` },
    [selection],
  );
  const assessment = assessInventory(discovered, settings.rules);
  Object.assign(wave.snapshots, snapshotsByVm(discovered));
  for (const vm of assessment.vms) {
    if (vm.refusals.length > 0) {
      wave.status.refused.push({ name: vm.name, moid: vm.moid, refusals: vm.refusals });
      wave.actions.push({ kind: 'refuse', vm: vm.pveName, reasons: vm.refusals.map((r) => r.reason) });
    } else {
      const bytes = wave.snapshots[vm.moid]?.vm.disks.reduce((sum, d) => sum + d.capacityBytes, 0);
      wave.status.vms.push({ moid: vm.moid, name: vm.name, workflowId: migrateVmWorkflowId(settings.vcenter, vm.moid), state: 'pending', bytes });
    }
  }
  return assessment;
}

/** Each VM with the portgroups its NICs use and the datastores holding its files. */
function snapshotsByVm(discovered: Discovery): Record<string, VmSnapshot> {
  const snapshots: Record<string, VmSnapshot> = {};
  for (const vm of discovered.vms) {
    const keys = new Set(vm.nics.flatMap((n) => (n.backing.kind === 'dvportgroup' ? [n.backing.portgroupKey] : [])));
    snapshots[vm.moid] = {
      vcenter: discovered.vcenter,
      vm,
      portgroups: discovered.portgroups.filter((pg) => keys.has(pg.key)),
      datastores: discovered.datastoresByVm[vm.moid] ?? [],
    };
  }
  return snapshots;
}
