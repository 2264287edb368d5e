import type { WaveSelection } from '../../activities/migration-contract';
import type { VmRecord } from '../../src/domain/inventory';
import {
  assessInventory,
  migrateVmWorkflowId,
  selectionSummary,
  type InventoryAssessment,
  type MigrationSettings,
} from '../../src/domain/migration';
import { activityProfiles } from '../vm/proxies';
import type { WaveState } from './state';

/** What discovery found: the assessment, and each VM's record (for placement; not kept by the wave). */
export interface WaveDiscovery {
  assessment: InventoryAssessment;
  records: Map<string, VmRecord>;
}

/**
 * One discovery and one assessment for the whole wave: each translatable VM joins the wave as pending
 * (its workflow reads the VM itself when it starts); each refused one is recorded with its reasons.
 */
export async function discover(
  wave: WaveState,
  selection: WaveSelection,
  settings: MigrationSettings,
): Promise<WaveDiscovery> {
  const discovered = await activityProfiles(settings).estateRead.discoverWave.executeWithOptions(
    { summary: `discover ${selectionSummary(selection)}` },
    [selection],
  );
  const assessment = assessInventory(discovered, settings.rules);
  const records = new Map(discovered.vms.map((vm) => [vm.moid, vm]));
  for (const vm of assessment.vms) {
    if (vm.refusals.length > 0) {
      wave.status.refused.push({ name: vm.name, moid: vm.moid, refusals: vm.refusals });
      wave.actions.push({ kind: 'refuse', vm: vm.pveName, reasons: vm.refusals.map((r) => r.reason) });
    } else {
      const bytes = records.get(vm.moid)?.disks.reduce((sum, d) => sum + d.capacityBytes, 0);
      wave.status.vms.push({
        moid: vm.moid,
        name: vm.name,
        workflowId: migrateVmWorkflowId(settings.vcenter, vm.moid),
        state: 'pending',
        bytes,
      });
    }
  }
  return { assessment, records };
}
