import { upsertSearchAttributes } from '@temporalio/workflow';
import {
  assessInventory,
  predictVmActions,
  sdnActions,
  type MigrationAction,
  type UntranslatedNetwork,
  type VmAssessment,
  type VmPrediction,
  type WaveSelection,
} from '../src/domain/migration';
import { FerryKind } from '../src/domain/search-attributes';
import type { Placement } from '../src/domain/placement';
import { placedVmSettings } from '../src/domain/placement';
import type { VmRecord } from '../src/domain/inventory';
import type { MigrationSettings } from '../src/domain/migration';
import { inspectedConversion } from './migration/inspected-conversion';
import { activityProfiles, reads, type ActivityProfiles } from './vm/proxies';
import { placeVms, placementRefusalsOf, vmPlacementOf } from './wave/placement';

export interface MigrationPlan {
  vcenter: string;
  /** The configured cutover mode (each VM's expected downtime is given for every mode). */
  cutoverMode?: MigrationSettings['cutover']['mode'];
  selection: WaveSelection;
  sdn: MigrationAction[];
  untranslatedNetworks: UntranslatedNetwork[];
  vms: VmPrediction[];
  /** Every action, SDN first, then each VM's. */
  actions: MigrationAction[];
  /** Where each VM goes and the totals per node and storage before and after (absent: no placement configured). */
  placement?: Placement;
}

export interface PlanOptions {
  /**
   * Read the guests whose conversion would run on their VMDKs (read-only, one libguestfs appliance each,
   * on the convert queue), where the disks are on the migration datastore already (default true).
   */
  inspect?: boolean;
}

/**
 * The truthful dry run: reads vCenter and Proxmox, writes nothing, and lists every action a wave over
 * `selection` would take, in the same form the workflows record what they did.
 */
export async function planMigration(selection: WaveSelection, options: PlanOptions = {}): Promise<MigrationPlan> {
  upsertSearchAttributes([{ key: FerryKind, value: 'plan' }]);
  const settings = await reads.loadMigrationSettings.executeWithOptions({ summary: 'load the migration settings' }, []);
  const acts = activityProfiles(settings);
  const estate = acts.estateRead;
  const discovered = await estate.discoverWave(selection);
  const assessment = assessInventory(discovered, settings.rules);
  const state = await estate.readPlanState({
    vms: assessment.vms.filter((a) => a.vmid !== undefined).map((a) => ({ vmid: a.vmid!, name: a.pveName })),
  });
  const sdn = sdnActions(assessment.vnetPlan, state.sdn);
  // The same placement the wave makes: the VMs that pass assessment, on the room read now.
  const placeable = assessment.vms
    .filter((a) => a.refusals.length === 0)
    .map((a) => discovered.vms.find((v) => v.moid === a.moid)!);
  const placement = await placeVms(placeable, assessment, settings);
  if (options.inspect !== false) {
    assessment.vms = await Promise.all(
      assessment.vms.map((a) =>
        withInspectedConversion(
          acts,
          a,
          discovered.vms.find((v) => v.moid === a.moid)!,
          settings,
        ),
      ),
    );
  }
  const vms = assessment.vms.map((assessed) => {
    const refusals = placement ? placementRefusalsOf(placement, assessed.moid) : [];
    const a = refusals.length > 0 ? { ...assessed, refusals } : assessed;
    const vm = discovered.vms.find((v) => v.moid === a.moid)!;
    const existing = state.existing.filter((e) => e.vmid === a.vmid || e.name === a.pveName);
    const adopted = existing.find((e) => e.vmid === a.vmid);
    return predictVmActions(
      a,
      {
        existing,
        config: adopted ? state.configs[adopted.vmid] : undefined,
        datastores: discovered.datastoresByVm[a.moid] ?? [],
        diskDatastores: Object.fromEntries(vm.disks.map((d) => [d.label, d.datastore?.name])),
        powerState: vm.powerState,
      },
      placedVmSettings(settings, vmPlacementOf(placement, a.moid)),
      assessment.vnetPlan,
      state.sdn,
    );
  });
  return {
    vcenter: settings.vcenter,
    cutoverMode: settings.cutover.mode,
    selection,
    sdn,
    untranslatedNetworks: assessment.untranslatedNetworks,
    vms,
    actions: [...sdn, ...vms.flatMap((v) => v.actions)],
    ...(placement ? { placement } : {}),
  };
}

/**
 * The VM's conversion plan as the wave will have it at its approval: refined by an inspection of its
 * VMDKs where they can be read now (on the migration datastore), else as vCenter's facts give it, with a
 * note saying when it will be read.
 */
async function withInspectedConversion(
  acts: ActivityProfiles,
  a: VmAssessment,
  vm: VmRecord,
  settings: MigrationSettings,
): Promise<VmAssessment> {
  const planned = a.conversion;
  if (!planned?.convert || !settings.rules.conversion || a.refusals.length > 0) return a;
  const inspected = await inspectedConversion(acts, a, vm.disks, vm.firmware, settings);
  if ('plan' in inspected) return { ...a, conversion: inspected.plan };
  const note =
    inspected.unread === 'elsewhere'
      ? `inspected after the storage vMotion, before the approval (${inspected.why})`
      : `could not be inspected now (${inspected.why}); the wave inspects it before the approval`;
  return { ...a, conversion: { ...planned, notes: [...planned.notes, note] } };
}
