import type { VmAssessment } from './assess';
import type { SlotNicSpec, TpmStateSpec } from '../pve-vm-spec';
import { describeCdrom, type PlannedCdrom } from './cdrom';
import { netConfigValue, pveNic } from './nics';
import { refusal, type Refusal } from './refusal';
import type { VnetPlan } from './vnet-plan';

/**
 * The actions a migration takes, in one form for both sides: `plan` lists the actions it predicts
 * from live state, the workflows record the actions they took, and tests hold the two equal. Only
 * identities and decisions go in here — no times, task ids or progress.
 */
export type MigrationAction =
  | { kind: 'create-sdn-zone'; zone: string; bridge: string }
  | { kind: 'create-vnet'; vnet: string; zone: string; tag: number; alias: string }
  | { kind: 'apply-sdn' }
  /** `cdroms` and `tpm`: what the shell is created with besides CPU, memory and firmware (absent when none). */
  | { kind: 'create-vm'; vm: string; vmid: number; node: string; cdroms?: PlannedCdrom[]; tpm?: TpmStateSpec }
  | { kind: 'set-nic'; vm: string; vmid: number; slot: string; value: string }
  | { kind: 'relocate'; vm: string; moid: string; datastore: string }
  | { kind: 'await-approval'; vm: string }
  | { kind: 'shutdown-guest'; vm: string; moid: string }
  /** virt-v2v-in-place on overlays of these slots' VMware disks (which are only read), before they come in. */
  | { kind: 'convert-guest'; vm: string; vmid: number; slots: string[] }
  | { kind: 'import-disk'; vm: string; vmid: number; slot: string; disk: string; storage: string }
  | { kind: 'live-import'; vm: string; vmid: number; node: string; slots: string[]; storage: string }
  /** overlay: the slot gets the qcow2 overlay of its VMware disk (backing file the VMDK, only read). */
  | { kind: 'attach-overlay'; vm: string; vmid: number; slot: string; disk: string }
  /** overlay: once the guest is verified, the disk moves live to its storage (the overlay deleted). */
  | { kind: 'move-disk'; vm: string; vmid: number; slot: string; storage: string }
  | { kind: 'set-boot-order'; vm: string; vmid: number; order: string }
  | { kind: 'start-vm'; vm: string; vmid: number }
  | { kind: 'refuse'; vm: string; reasons: string[] }
  /**
   * The diskless shell goes: `ferry cancel --remove-shells`, `ferry place` (built again elsewhere), or
   * (`refused`) the VM was refused before its approval, after its shell was built (its disks were not
   * where Proxmox reads them).
   */
  | { kind: 'remove-shell'; vm: string; vmid: number; refused?: true };

export function describeAction(a: MigrationAction): string {
  switch (a.kind) {
    case 'create-sdn-zone':
      return `create SDN VLAN zone ${a.zone} on ${a.bridge}`;
    case 'create-vnet':
      return `create VNet ${a.vnet} (VLAN ${a.tag}, ${a.alias}) in zone ${a.zone}`;
    case 'apply-sdn':
      return 'apply the SDN configuration';
    case 'create-vm':
      return `create VM ${a.vmid} "${a.vm}" on ${a.node} (no disks yet${shellDevices(a)
        .map((d) => `; ${d}`)
        .join('')})`;
    case 'set-nic':
      return `${a.vm}: set ${a.slot} = ${a.value}`;
    case 'relocate':
      return `${a.vm}: storage vMotion ${a.moid} to ${a.datastore}`;
    case 'await-approval':
      return `${a.vm}: wait for a person to approve the cutover`;
    case 'shutdown-guest':
      return `${a.vm}: shut down the guest on VMware (${a.moid})`;
    case 'convert-guest':
      return `${a.vm}: convert the guest (virt-v2v-in-place) on overlays of ${a.slots.join(', ')}; VMware's disks are only read`;
    case 'import-disk':
      return `${a.vm}: import ${a.disk} into ${a.slot} on ${a.storage}`;
    case 'live-import':
      return `${a.vm}: re-create VM ${a.vmid} on ${a.node} running at once, ${a.slots.join(', ')} streamed in from the NFS copies to ${a.storage}`;
    case 'attach-overlay':
      return `${a.vm}: attach ${a.slot} from a qcow2 overlay of ${a.disk} on the migration datastore`;
    case 'move-disk':
      return `${a.vm}: move ${a.slot} live to ${a.storage} (the VM runs; its overlay is deleted once moved)`;
    case 'set-boot-order':
      return `${a.vm}: boot order ${a.order}`;
    case 'start-vm':
      return `${a.vm}: start VM ${a.vmid}`;
    case 'refuse':
      return `${a.vm}: not migrated — ${a.reasons.join('; ')}`;
    case 'remove-shell':
      // Also `ferry place` (the shell is built again on the new node) and `ferry cancel --remove-shells`.
      return `${a.vm}: remove the shell VM ${a.vmid}${a.refused ? ' (refused before its approval)' : ''}`;
  }
}

export type CreateVmAction = Extract<MigrationAction, { kind: 'create-vm' }>;

/** The shell's creation as `plan` predicts it and the workflow records it: with its CD drives and new TPM. */
export function createVmAction(
  assessment: Pick<VmAssessment, 'pveName' | 'vmid' | 'cdroms' | 'tpm'>,
  node: string,
): CreateVmAction {
  return {
    kind: 'create-vm',
    vm: assessment.pveName,
    vmid: assessment.vmid!,
    node,
    ...(assessment.cdroms?.length ? { cdroms: assessment.cdroms } : {}),
    ...(assessment.tpm ? { tpm: assessment.tpm } : {}),
  };
}

/** The devices a shell is created with that the description names: CD drives, then the new TPM. */
function shellDevices(a: CreateVmAction): string[] {
  return [
    ...(a.cdroms ?? []).map(describeCdrom),
    ...(a.tpm
      ? [
          `tpmstate0: a new, empty TPM ${a.tpm.version} on ${a.tpm.storage} (secrets sealed to the VMware vTPM do not move)`,
        ]
      : []),
  ];
}

/** What exists in Proxmox SDN already (ids only). */
export interface SdnState {
  zones: string[];
  vnets: string[];
}

/** SDN actions for a plan against what exists: create what is missing, then one apply. */
export function sdnActions(plan: Pick<VnetPlan, 'zone' | 'vnets'>, state: SdnState): MigrationAction[] {
  const actions: MigrationAction[] = [];
  const toCreate = plan.vnets.filter((v) => v.create && v.tag !== undefined && !state.vnets.includes(v.id));
  if (toCreate.length === 0) return actions;
  if (!state.zones.includes(plan.zone.id))
    actions.push({ kind: 'create-sdn-zone', zone: plan.zone.id, bridge: plan.zone.bridge });
  for (const v of toCreate)
    actions.push({ kind: 'create-vnet', vnet: v.id, zone: plan.zone.id, tag: v.tag!, alias: v.alias });
  actions.push({ kind: 'apply-sdn' });
  return actions;
}

/** VNets a plan expects to exist without creating them (override targets without a tag). */
export function missingExistingVnets(plan: Pick<VnetPlan, 'vnets'>, state: SdnState): string[] {
  return plan.vnets.filter((v) => !v.create && !state.vnets.includes(v.id)).map((v) => v.id);
}

/** A refusal for each VNet an override names that Proxmox does not have. */
export function missingVnetRefusals(plan: Pick<VnetPlan, 'vnets'>, state: SdnState): Refusal[] {
  return missingExistingVnets(plan, state).map((vnet) =>
    refusal(
      'nic-no-vnet',
      vnet,
      `VNet ${vnet} is named in a network override but does not exist in Proxmox; create it first`,
    ),
  );
}

export type SetNicAction = Extract<MigrationAction, { kind: 'set-nic' }>;

/** `set-nic` for every planned NIC whose current value in the VM config differs. */
export function nicActions(assessment: VmAssessment, currentConfig: Readonly<Record<string, unknown>>): SetNicAction[] {
  return nicWrites(assessment, currentConfig).map((w) => w.action);
}

/** Each NIC to write: the action as recorded, and the NIC as Proxmox gets it. */
export function nicWrites(
  assessment: VmAssessment,
  currentConfig: Readonly<Record<string, unknown>>,
): Array<{ action: SetNicAction; nic: SlotNicSpec }> {
  return assessment.nics
    .filter((nic) => !sameNetValue(currentConfig[nic.slot], netConfigValue(nic)))
    .map((nic) => ({
      action: {
        kind: 'set-nic',
        vm: assessment.pveName,
        vmid: assessment.vmid!,
        slot: nic.slot,
        value: netConfigValue(nic),
      },
      nic: pveNic(nic),
    }));
}

/** PVE writes `virtio=MAC,bridge=X` plus options it added (firewall=0, …): compare the parts ferry sets. */
export function sameNetValue(current: unknown, wanted: string): boolean {
  if (typeof current !== 'string') return false;
  const parts = (s: string) => new Map(s.split(',').map((p) => p.split('=') as [string, string]));
  const have = parts(current);
  for (const [k, v] of parts(wanted)) if (have.get(k)?.toUpperCase() !== v.toUpperCase()) return false;
  return true;
}

/** Boot from the first disk, then the first NIC (CD drives are not in the boot order). */
export function bootOrder(assessment: Pick<VmAssessment, 'disks' | 'nics'>): string {
  const devices = [assessment.disks[0]?.slot, assessment.nics[0]?.slot].filter((d): d is string => Boolean(d));
  return `order=${devices.join(';')}`;
}
