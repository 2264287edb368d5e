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

type PredictSettings = Pick<
  MigrationSettings,
  'node' | 'migrationDatastore' | 'targetStorage' | 'cutover' | 'diskStorages'
>;

/**
 * The actions `migrateVm` will record for this VM, given what exists now, if every step succeeds and
 * the cutover is approved. Uses the same decisions as the workflow (shell, NICs, boot order).
 */
export function predictVmActions(
  assessment: VmAssessment,
  live: VmLiveState,
  settings: PredictSettings,
  plan: Pick<VnetPlan, 'vnets'>,
  sdn: SdnState,
): VmPrediction {
  const base = {
    name: assessment.name,
    moid: assessment.moid,
    vmid: assessment.vmid,
    notes: [...assessment.notes, ...powerStateWarnings(assessment.name, live.powerState)],
    ...(assessment.warnings?.length ? { warnings: assessment.warnings } : {}),
    ...(assessment.conversion ? { conversion: assessment.conversion } : {}),
  };
  const before = refusalsBeforeShell(assessment, live, plan, sdn);
  if ('refusals' in before) {
    const { refusals } = before;
    const reasons = refusals.map((r) => r.reason);
    return { ...base, refusals, actions: [{ kind: 'refuse', vm: assessment.pveName, reasons }] };
  }
  const actions = shellActions(assessment, live, settings, before.occupancy);
  // A suspended VM is refused right after the approval (nothing on VMware is touched).
  const suspended = cutoverPowerRefusal(assessment.name, live.powerState);
  if (suspended) {
    const refuse: MigrationAction = { kind: 'refuse', vm: assessment.pveName, reasons: [suspended.reason] };
    return { ...base, refusals: [suspended], actions: [...actions, refuse] };
  }
  actions.push(...cutoverActions(assessment, live, settings));
  return { ...base, refusals: [], actions, expectedDowntime: expectedDowntimes(assessment) };
}

/** Why nothing will be built: the assessment's refusals, a VMID taken by another VM, a VNet missing. */
function refusalsBeforeShell(
  assessment: VmAssessment,
  live: Pick<VmLiveState, 'existing'>,
  plan: Pick<VnetPlan, 'vnets'>,
  sdn: SdnState,
): { refusals: Refusal[] } | { occupancy: VmidOccupancy } {
  if (assessment.refusals.length > 0) return { refusals: assessment.refusals };
  const occupancy = vmidOccupancy(assessment.vmid!, assessment.pveName, live.existing);
  if (occupancy.kind === 'clash') return { refusals: [occupancy.refusal] };
  const vnets = plan.vnets.filter((v) => assessment.nics.some((n) => n.bridge === v.id));
  const missing = missingVnetRefusals({ vnets }, sdn);
  if (missing.length > 0) return { refusals: missing };
  return { occupancy };
}

/** Up to the approval: the shell (created, or adopted and its NICs set), the storage vMotion, the gate. */
function shellActions(
  assessment: VmAssessment,
  live: VmLiveState,
  settings: PredictSettings,
  occupancy: VmidOccupancy,
): MigrationAction[] {
  const pveName = assessment.pveName;
  const actions: MigrationAction[] = [];
  if (occupancy.kind === 'free') actions.push(createVmAction(assessment, settings.node));
  actions.push(...nicActions(assessment, occupancy.kind === 'adopt' ? (live.config ?? {}) : {}));
  if (!filesOnDatastore(live.datastores, live.diskDatastores, settings.migrationDatastore)) {
    actions.push({ kind: 'relocate', vm: pveName, moid: assessment.moid, datastore: settings.migrationDatastore });
  }
  actions.push({ kind: 'await-approval', vm: pveName });
  return actions;
}

/** From the approval on: the guest shut down, converted, and its disks brought over the cutover mode's way. */
function cutoverActions(assessment: VmAssessment, live: VmLiveState, settings: PredictSettings): MigrationAction[] {
  const pveName = assessment.pveName;
  const vmid = assessment.vmid!;
  const actions: MigrationAction[] = [];
  if (live.powerState !== 'poweredOff') actions.push({ kind: 'shutdown-guest', vm: pveName, moid: assessment.moid });
  if (assessment.conversion?.convert)
    actions.push({ kind: 'convert-guest', vm: pveName, vmid, slots: assessment.disks.map((d) => d.slot) });
  const order = bootOrder(assessment);
  const disks = assessment.disks;
  if (settings.cutover.mode === 'overlay') {
    // The VM runs from overlays at once; its disks move live once its guest is verified.
    for (const d of disks) actions.push({ kind: 'attach-overlay', vm: pveName, vmid, slot: d.slot, disk: d.source });
    actions.push({ kind: 'set-boot-order', vm: pveName, vmid, order }, { kind: 'start-vm', vm: pveName, vmid });
    for (const d of disks) {
      const storage = diskStorage(settings, d.source);
      actions.push({ kind: 'move-disk', vm: pveName, vmid, slot: d.slot, storage });
    }
  } else if (settings.cutover.mode === 'import') {
    for (const d of disks) {
      if (typeof live.config?.[d.slot] === 'string') continue;
      const storage = diskStorage(settings, d.source);
      actions.push({ kind: 'import-disk', vm: pveName, vmid, slot: d.slot, disk: d.source, storage });
    }
    actions.push({ kind: 'set-boot-order', vm: pveName, vmid, order });
    if (settings.cutover.startAfter) actions.push({ kind: 'start-vm', vm: pveName, vmid });
  } else {
    // live-import: one create at cutover replaces the shell; the VM runs from then on.
    const slots = disks.map((d) => d.slot);
    actions.push({
      kind: 'live-import',
      vm: pveName,
      vmid,
      node: settings.node,
      slots,
      storage: settings.targetStorage,
    });
  }
  return actions;
}

const MODES: readonly CutoverMode[] = ['import', 'live-import', 'overlay'];

/** What the cutover plan would estimate in each mode, before this wave measured any copy. */
export function expectedDowntimes(assessment: VmAssessment): Record<CutoverMode, number> {
  const assumed = measuredThroughput([]);
  return Object.fromEntries(
    MODES.map((mode) => [mode, cutoverPlan(assessment, mode, '', assumed).expectedDowntimeSeconds]),
  ) as Record<CutoverMode, number>;
}
