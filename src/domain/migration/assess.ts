import type { Inventory, PortgroupRecord, VmRecord } from '../inventory';
import type { TpmStateSpec } from '../pve-vm-spec';
import { planCdroms, type IsoMap, type PlannedCdrom } from './cdrom';
import { cpuTopology, type CpuTopology } from './cpu';
import { diskRefusals, planDiskSlots, type DiskBusPolicy, type PlannedDisk } from './disks';
import { firmwareSettings, type FirmwareSettings } from './firmware';
import { pveVmName } from './names';
import { mapNics, type NicModelPolicy, type PlannedNic } from './nics';
import { osTypeFor, type OsTypeMapping } from './ostype';
import { refusal, type Refusal } from './refusal';
import { tpmRefusals, tpmState, tpmWarnings, type TpmPolicy } from './tpm';
import { vmidFromMoid } from './vmid';
import { planVnets, type UntranslatedNetwork, type VnetPlan, type VnetPlanOptions } from './vnet-plan';
import { compareCodeUnits } from '../order';
import { conversionPlan, type ConversionPlan } from '../conversion/decision';
import { guestDevices } from '../conversion/devices';
import { guestFamily } from '../conversion/guest-family';
import type { ConversionSettings } from '../conversion/settings';

/** The settings that decide how a vSphere VM becomes a Proxmox VM. */
export interface MigrationRules {
  /** VMID = vmidBase + numeric part of the moid. */
  vmidBase: number;
  network: VnetPlanOptions;
  nicModel: NicModelPolicy;
  diskBus: DiskBusPolicy;
  /** Storage for the EFI vars disk of EFI guests (and the TPM state of `tpm: new`). */
  efiStorage: string;
  /** VMware ISO path → Proxmox ISO volume, for CD drives (unmapped: an empty drive). */
  isoMap?: IsoMap;
  /** A VM with a vTPM: refused (default), or given a new TPM. */
  tpm?: TpmPolicy;
  /**
   * Guest conversion at cutover (migration.conversion). Absent in runs started before it existed: no
   * conversion, and every guest gets the configured disk bus and NIC model.
   */
  conversion?: ConversionSettings;
}

export interface VmAssessment {
  moid: string;
  name: string;
  /** The name the Proxmox VM gets (a DNS-safe form of the VMware name). */
  pveName: string;
  vmid?: number;
  firmware: FirmwareSettings;
  cpu?: CpuTopology;
  memoryMb: number;
  ostype: OsTypeMapping;
  nics: PlannedNic[];
  disks: PlannedDisk[];
  /** CD drives (absent when the VM has none). */
  cdroms?: PlannedCdrom[];
  /** The new TPM of a VM with a vTPM under `tpm: new`. */
  tpm?: TpmStateSpec;
  /** Things a person must act on before the cutover (absent when none). */
  warnings?: string[];
  /** Empty when the VM can be migrated. */
  refusals: Refusal[];
  /** Things a person should know that do not stop the migration. */
  notes: string[];
  /**
   * What conversion will do to the guest, from vCenter's facts (the run refines it once it has inspected
   * the disks); absent in runs without migration.conversion.
   */
  conversion?: ConversionPlan;
}

export interface InventoryAssessment {
  /** Zone and VNets for the VMs that will move. */
  vnetPlan: VnetPlan;
  /** Networks of the selected VMs that have no automatic translation, with the reason. */
  untranslatedNetworks: UntranslatedNetwork[];
  vms: VmAssessment[];
}

/** Refusals that do not depend on networks: template, snapshots, disk modes, RDMs, VMID, CPU count. */
function vmRefusals(vm: VmRecord, rules: MigrationRules): { refusals: Refusal[]; vmid?: number; cpu?: CpuTopology } {
  const refusals: Refusal[] = [];
  if (vm.template)
    refusals.push(refusal('template', vm.name, `${vm.name} is a template; convert it to a VM first if it should move`));
  if (vm.hasSnapshot) {
    refusals.push(
      refusal(
        'snapshot',
        vm.name,
        `${vm.name} has snapshots; consolidate or delete them in vCenter first (ferry never deletes VMware data)`,
      ),
    );
  }
  refusals.push(...diskRefusals(vm));
  refusals.push(...tpmRefusals(vm, rules.tpm));
  const vmid = vmidFromMoid(vm.moid, rules.vmidBase);
  if (!vmid.ok) refusals.push(vmid.refusal);
  let cpu: CpuTopology | undefined;
  try {
    cpu = cpuTopology(vm.numCpu, vm.numCoresPerSocket);
  } catch (err) {
    refusals.push(refusal('cpu-invalid', vm.name, `${vm.name}: ${(err as Error).message}`));
  }
  return { refusals, vmid: vmid.ok ? vmid.vmid : undefined, cpu };
}

function networksUsed(vms: readonly VmRecord[]): { portgroupKeys: Set<string>; standardNetworks: Set<string> } {
  const portgroupKeys = new Set<string>();
  const standardNetworks = new Set<string>();
  for (const vm of vms) {
    for (const nic of vm.nics) {
      if (nic.backing.kind === 'dvportgroup') portgroupKeys.add(nic.backing.portgroupKey);
      if (nic.backing.kind === 'network') standardNetworks.add(nic.backing.networkName);
    }
  }
  return { portgroupKeys, standardNetworks };
}

/**
 * Decides, for every selected VM, what its Proxmox VM will be or why it will not be migrated, and
 * plans the VNets the migratable ones need. Pure: the same inventory and rules give the same answer,
 * which is what lets `plan` tell the truth about what the workflows will do.
 */
export function assessInventory(
  inventory: Pick<Inventory, 'vms' | 'portgroups'>,
  rules: MigrationRules,
  select: (vm: VmRecord) => boolean = () => true,
): InventoryAssessment {
  const selected = inventory.vms
    .filter(select)
    .sort((a, b) => compareCodeUnits(a.name, b.name) || compareCodeUnits(a.moid, b.moid));
  const portgroupsByKey = new Map<string, PortgroupRecord>(inventory.portgroups.map((pg) => [pg.key, pg]));
  // NICs are judged against every selected VM's networks, so a VM refused for a snapshot still hears
  // about a trunk NIC; VNets are then planned only for the VMs that will really move.
  const everyNetwork = planVnets(
    inventory.portgroups,
    networksUsed(selected.filter((vm) => !vm.template)),
    rules.network,
  );
  const assessments = selected.map((vm) => assessVm(vm, rules, portgroupsByKey, everyNetwork));
  const migratable = new Set(assessments.filter((a) => a.refusals.length === 0).map((a) => a.moid));
  const vnetPlan = planVnets(
    inventory.portgroups,
    networksUsed(selected.filter((vm) => migratable.has(vm.moid))),
    rules.network,
  );
  return { vnetPlan, untranslatedNetworks: everyNetwork.untranslated, vms: assessments };
}

/** One VM: its Proxmox VM (devices, firmware, NICs on their VNets, disks, CD drives, TPM) or its refusals. */
export function assessVm(
  vm: VmRecord,
  rules: MigrationRules,
  portgroupsByKey: ReadonlyMap<string, PortgroupRecord>,
  networks: VnetPlan,
): VmAssessment {
  const { refusals, vmid, cpu } = vmRefusals(vm, rules);
  const ostype = osTypeFor(vm.guestId);
  const family = guestFamily(ostype.ostype);
  const devices = guestDevices(vm.name, family, rules.conversion, rules);
  const nicPlan = mapNics(vm, portgroupsByKey, networks, devices.nicModel);
  const diskPlan = planDiskSlots(vm, devices.diskBus);
  const cdromPlan = planCdroms(vm, diskPlan.disks, rules.isoMap);
  const tpm = tpmState(vm, rules.tpm, rules.efiStorage);
  const warnings = tpmWarnings(vm, tpm);
  const pveName = pveVmName(vm.name);
  const notes: string[] = [...(devices.note ? [devices.note] : []), ...diskPlan.problems, ...cdromPlan.problems];
  const conversion = rules.conversion
    ? conversionPlan(
        { vmName: vm.name, family, firmware: vm.firmware, nics: nicPlan.nics, disks: diskPlan.disks },
        rules.conversion,
      )
    : undefined;
  if (!ostype.known) notes.push(`guestId ${vm.guestId} is not in ferry's table; ostype set to "other"`);
  if (pveName !== vm.name) notes.push(`named "${pveName}" in Proxmox (VM names there must be DNS names)`);
  return {
    moid: vm.moid,
    name: vm.name,
    pveName,
    vmid,
    firmware: firmwareSettings(vm.firmware, rules.efiStorage),
    cpu,
    memoryMb: vm.memoryMb,
    ostype,
    nics: nicPlan.nics,
    disks: diskPlan.disks,
    ...(cdromPlan.cdroms.length > 0 ? { cdroms: cdromPlan.cdroms } : {}),
    ...(tpm ? { tpm } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
    refusals: [...refusals, ...nicPlan.refusals],
    notes,
    ...(conversion ? { conversion } : {}),
  };
}
