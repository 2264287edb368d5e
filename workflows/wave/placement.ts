import { setHandler } from '@temporalio/workflow';
import type { VmRecord } from '../../src/domain/inventory';
import type { InventoryAssessment, MigrationSettings, Refusal } from '../../src/domain/migration';
import {
  placementVm,
  placeWave,
  type Placement,
  type PlacementSettings,
  type PlacementVm,
  type VmPlacement,
} from '../../src/domain/placement';
import { vmPlacedSignal } from '../../src/domain/messages';
import type { WaveDiscovery } from './discover';
import { placementReads } from './placement-reads';
import type { WaveState } from './state';

/**
 * The pre-flight: before any VM workflow starts (so before any shell or vMotion), the wave reads the
 * cluster's room and the migration datastore's, places its VMs, and refuses what does not fit with
 * the numbers: the whole wave, or with `placement.partial` only the misfits. Each placed VM keeps its
 * node and disk storages in the wave's status, and its workflow runs there.
 */
export async function preflightPlacement(
  wave: WaveState,
  { assessment, records }: WaveDiscovery,
  settings: MigrationSettings,
): Promise<Placement | undefined> {
  if (!settings.placement) return undefined;
  const pending = wave.vmsIn('pending');
  if (pending.length === 0) return undefined;
  const placement = await placeVms(
    pending.map((vm) => records.get(vm.moid)!),
    assessment,
    settings,
  );
  if (placement) applyPlacement(wave, placement, assessment);
  return placement;
}

/**
 * Reads the room (Proxmox nodes and storages, the migration datastore) and places `vms`; the wave's
 * own VMIDs are not counted as committed (a rerun finds its shells). `plan` calls the same.
 */
export async function placeVms(
  records: VmRecord[],
  assessment: InventoryAssessment,
  settings: MigrationSettings,
): Promise<Placement | undefined> {
  if (!settings.placement || records.length === 0) return undefined;
  const vms = await placementVms(records, settings.placement);
  const exclude = assessment.vms.flatMap((vm) => (vm.vmid !== undefined ? [vm.vmid] : []));
  const capacity = await placementReads.readClusterCapacity.executeWithOptions({ summary: 'read Proxmox capacity' }, [
    { exclude },
  ]);
  const datastore = await placementReads.readDatastoreRoom.executeWithOptions(
    { summary: `read the room on ${settings.migrationDatastore}` },
    [{ datastore: settings.migrationDatastore, nearVm: records[0]!.moid }],
  );
  return placeWave({
    nodes: capacity.nodes,
    storages: capacity.storages,
    vms,
    settings: settings.placement,
    migrationDatastore: datastore,
  });
}

/** The wave's VMs as placement sees them, with the tags its rules and groups name. */
async function placementVms(records: VmRecord[], settings: PlacementSettings): Promise<PlacementVm[]> {
  const tags = [
    ...(settings.rules ?? []).map((r) => r.match.tag),
    ...(settings.antiAffinity ?? []).map((g) => g.tag),
  ].filter((t): t is string => t !== undefined);
  const carriers =
    tags.length > 0
      ? await placementReads.readVmTags.executeWithOptions({ summary: `read vSphere tags ${tags.join(', ')}` }, [
          { tags },
        ])
      : {};
  return records.map((vm) =>
    placementVm(
      vm,
      Object.keys(carriers).filter((tag) => carriers[tag]!.includes(vm.moid)),
    ),
  );
}

/** Refused VMs leave the pending list with their reasons; placed ones keep where they go. */
function applyPlacement(wave: WaveState, placement: Placement, assessment: InventoryAssessment): void {
  for (const placed of placement.placed) {
    const vm = wave.status.vms.find((v) => v.moid === placed.moid && v.state === 'pending');
    if (vm) vm.placement = vmPlacementOf(placement, placed.moid);
  }
  for (const refused of placement.refused) {
    const index = wave.status.vms.findIndex((v) => v.moid === refused.moid && v.state === 'pending');
    if (index < 0) continue;
    wave.status.vms.splice(index, 1);
    const refusals = placementRefusalsOf(placement, refused.moid);
    wave.status.refused.push({ name: refused.name, moid: refused.moid, refusals });
    const pveName = assessment.vms.find((a) => a.moid === refused.moid)?.pveName ?? refused.name;
    wave.actions.push({ kind: 'refuse', vm: pveName, reasons: refusals.map((r) => r.reason) });
  }
}

/** Why placement refused this VM (the wave's own refusals first, when the wave was refused whole). */
export function placementRefusalsOf(placement: Placement, moid: string): Refusal[] {
  const refused = placement.refused.find((r) => r.moid === moid);
  if (!refused) return [];
  return [
    ...placement.waveRefusals,
    ...refused.refusals.filter((r) => !placement.waveRefusals.some((w) => w.reason === r.reason)),
  ];
}

/** Where placement put this VM, as the wave keeps it, with its node's memory commitment once the wave is placed. */
export function vmPlacementOf(placement: Placement | undefined, moid: string): VmPlacement | undefined {
  const placed = placement?.placed.find((p) => p.moid === moid);
  if (!placed) return undefined;
  const node = placement!.nodes.find((n) => n.node === placed.node);
  const memory = node && {
    committedAfterBytes: node.committedAfterBytes,
    limitBytes: node.limitBytes,
    memoryBytes: node.memoryBytes,
  };
  return {
    node: placed.node,
    disks: placed.disks.map((d) => ({ label: d.label, storage: d.storage })),
    ...(memory ? { memory } : {}),
  };
}

/** `ferry place` moved a VM: the wave's status and summary show where it is now. */
export function handlePlacementMoved(wave: WaveState): void {
  setHandler(vmPlacedSignal, ({ moid, placement }) => {
    const vm = wave.vm(moid);
    if (vm && vm.state !== 'finished') vm.placement = placement;
  });
}
