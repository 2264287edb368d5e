import type { ConversionPlan } from '../conversion/decision';
import {
  bootOrder,
  createVmAction,
  missingVnetRefusals,
  nicActions,
  type MigrationAction,
  type SdnState,
} from './actions';
import type { VmAssessment } from './assess';
import { cutoverPowerRefusal, powerStateWarnings } from './power-state';
import type { Refusal } from './refusal';
import type { CutoverMode, MigrationSettings } from './settings';
import { cutoverPlan, measuredThroughput } from './cutover-plan';
import { diskStorage } from '../placement/vm-settings';
import { vmidOccupancy, type VmidOccupancy } from './vmid';
import type { VnetPlan } from './vnet-plan';

/** What `plan` reads about one VM before predicting its actions. */
export interface VmLiveState {
  /** Proxmox VMs with this VM's VMID or name. */
  existing: ReadonlyArray<{ vmid: number; name?: string }>;
  /** Config of the Proxmox VM when it exists (adopted). */
  config?: Readonly<Record<string, unknown>>;
  /** Datastores holding the VMware VM's files. */
  datastores: readonly string[];
  /** Datastore of each disk, by label. */
  diskDatastores: Readonly<Record<string, string | undefined>>;
  powerState: 'poweredOn' | 'poweredOff' | 'suspended';
}

export interface VmPrediction {
  name: string;
  moid: string;
  vmid?: number;
  actions: MigrationAction[];
  refusals: Refusal[];
  notes: string[];
  /** Things a person must act on before the cutover (absent when none), e.g. a new TPM. */
  warnings?: string[];
  /** What guest conversion will do, or why it will not run (absent without migration.conversion). */
  conversion?: ConversionPlan;
  /** The downtime to expect in each cutover mode (seconds; assumed throughput), for a VM that will move. */
  expectedDowntime?: Record<CutoverMode, number>;
}

/** All of a VM's files are on the datastore already, so the storage vMotion has nothing to do. */
export function filesOnDatastore(
  datastores: readonly string[],
  diskDatastores: Readonly<Record<string, string | undefined>>,
  datastore: string,
): boolean {
  return (
    datastores.length > 0 &&
    datastores.every((d) => d === datastore) &&
    Object.values(diskDatastores).every((d) => d === datastore)
  );
}

/**
 * The actions `migrateVm` will record for this VM, given what exists now, if every step succeeds and
 * the cutover is approved. Uses the same decisions as the workflow (shell, NICs, boot order).
 */
export function predictVmActions(
  a: VmAssessment,
  live: VmLiveState,
  settings: Pick<MigrationSettings, 'node' | 'migrationDatastore' | 'targetStorage' | 'cutover' | 'diskStorages'>,
  plan: Pick<VnetPlan, 'vnets'>,
  sdn: SdnState,
): VmPrediction {
  const base = {
    name: a.name,
    moid: a.moid,
    vmid: a.vmid,
    notes: [...a.notes, ...powerStateWarnings(a.name, live.powerState)],
    ...(a.warnings?.length ? { warnings: a.warnings } : {}),
    ...(a.conversion ? { conversion: a.conversion } : {}),
  };
  const refuse = (refusals: Refusal[]): VmPrediction => ({
    ...base,
    refusals,
    actions: [{ kind: 'refuse', vm: a.pveName, reasons: refusals.map((r) => r.reason) }],
  });
  if (a.refusals.length > 0) return refuse(a.refusals);
  const vmid = a.vmid!;
  const occupancy: VmidOccupancy = vmidOccupancy(vmid, a.pveName, live.existing);
  if (occupancy.kind === 'clash') return refuse([occupancy.refusal]);
  const missing = missingVnetRefusals({ vnets: plan.vnets.filter((v) => a.nics.some((n) => n.bridge === v.id)) }, sdn);
  if (missing.length > 0) return refuse(missing);

  const vm = a.pveName;
  const actions: MigrationAction[] = [];
  if (occupancy.kind === 'free') actions.push(createVmAction(a, settings.node));
  actions.push(...nicActions(a, occupancy.kind === 'adopt' ? (live.config ?? {}) : {}));
  if (!filesOnDatastore(live.datastores, live.diskDatastores, settings.migrationDatastore)) {
    actions.push({ kind: 'relocate', vm, moid: a.moid, datastore: settings.migrationDatastore });
  }
  actions.push({ kind: 'await-approval', vm });
  // A suspended VM is refused right after the approval (nothing on VMware is touched).
  const suspended = cutoverPowerRefusal(a.name, live.powerState);
  if (suspended)
    return {
      ...base,
      refusals: [suspended],
      actions: [...actions, { kind: 'refuse', vm, reasons: [suspended.reason] }],
    };
  if (live.powerState !== 'poweredOff') actions.push({ kind: 'shutdown-guest', vm, moid: a.moid });
  if (a.conversion?.convert) actions.push({ kind: 'convert-guest', vm, vmid, slots: a.disks.map((d) => d.slot) });
  const order = bootOrder(a);
  if (settings.cutover.mode === 'overlay') {
    // The VM runs from overlays at once; its disks move live once its guest is verified.
    for (const d of a.disks) actions.push({ kind: 'attach-overlay', vm, vmid, slot: d.slot, disk: d.source });
    actions.push({ kind: 'set-boot-order', vm, vmid, order }, { kind: 'start-vm', vm, vmid });
    for (const d of a.disks)
      actions.push({ kind: 'move-disk', vm, vmid, slot: d.slot, storage: diskStorage(settings, d.source) });
  } else if (settings.cutover.mode === 'import') {
    for (const d of a.disks) {
      if (typeof live.config?.[d.slot] === 'string') continue;
      actions.push({
        kind: 'import-disk',
        vm,
        vmid,
        slot: d.slot,
        disk: d.source,
        storage: diskStorage(settings, d.source),
      });
    }
    actions.push({ kind: 'set-boot-order', vm, vmid, order });
    if (settings.cutover.startAfter) actions.push({ kind: 'start-vm', vm, vmid });
  } else {
    // live-import: one create at cutover replaces the shell; the VM runs from then on.
    actions.push({
      kind: 'live-import',
      vm,
      vmid,
      node: settings.node,
      slots: a.disks.map((d) => d.slot),
      storage: settings.targetStorage,
    });
  }
  return { ...base, refusals: [], actions, expectedDowntime: expectedDowntimes(a) };
}

const MODES: readonly CutoverMode[] = ['import', 'live-import', 'overlay'];

/** What the cutover plan would estimate in each mode, before this wave measured any copy. */
export function expectedDowntimes(a: VmAssessment): Record<CutoverMode, number> {
  const assumed = measuredThroughput([]);
  return Object.fromEntries(
    MODES.map((mode) => [mode, cutoverPlan(a, mode, '', assumed).expectedDowntimeSeconds]),
  ) as Record<CutoverMode, number>;
}
