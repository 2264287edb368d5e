import type { VmAssessment } from './assess';
import { netConfigValue } from './nics';
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
  | { kind: 'create-vm'; vm: string; vmid: number; node: string }
  | { kind: 'set-nic'; vm: string; vmid: number; slot: string; value: string }
  | { kind: 'relocate'; vm: string; moid: string; datastore: string }
  | { kind: 'await-approval'; vm: string }
  | { kind: 'shutdown-guest'; vm: string; moid: string }
  | { kind: 'import-disk'; vm: string; vmid: number; slot: string; disk: string; storage: string }
  | { kind: 'live-import'; vm: string; vmid: number; node: string; slots: string[]; storage: string }
  | { kind: 'set-boot-order'; vm: string; vmid: number; order: string }
  | { kind: 'start-vm'; vm: string; vmid: number }
  | { kind: 'refuse'; vm: string; reasons: string[] };

export function describeAction(a: MigrationAction): string {
  switch (a.kind) {
    case 'create-sdn-zone':
      return `create SDN VLAN zone ${a.zone} on ${a.bridge}`;
    case 'create-vnet':
      return `create VNet ${a.vnet} (VLAN ${a.tag}, ${a.alias}) in zone ${a.zone}`;
    case 'apply-sdn':
      return 'apply the SDN configuration';
    case 'create-vm':
      return `create VM ${a.vmid} "${a.vm}" on ${a.node} (no disks yet)`;
    case 'set-nic':
      return `${a.vm}: set ${a.slot} = ${a.value}`;
    case 'relocate':
      return `${a.vm}: storage vMotion ${a.moid} to ${a.datastore}`;
    case 'await-approval':
      return `${a.vm}: wait for a person to approve the cutover`;
    case 'shutdown-guest':
      return `${a.vm}: shut down the guest on VMware (${a.moid})`;
    case 'import-disk':
      return `${a.vm}: import ${a.disk} into ${a.slot} on ${a.storage}`;
    case 'live-import':
      return `${a.vm}: re-create VM ${a.vmid} on ${a.node} running at once, ${a.slots.join(', ')} streamed in from the NFS copies to ${a.storage}`;
    case 'set-boot-order':
      return `${a.vm}: boot order ${a.order}`;
    case 'start-vm':
      return `${a.vm}: start VM ${a.vmid}`;
    case 'refuse':
      return `${a.vm}: not migrated — ${a.reasons.join('; ')}`;
  }
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
  if (!state.zones.includes(plan.zone.id)) actions.push({ kind: 'create-sdn-zone', zone: plan.zone.id, bridge: plan.zone.bridge });
  for (const v of toCreate) actions.push({ kind: 'create-vnet', vnet: v.id, zone: plan.zone.id, tag: v.tag!, alias: v.alias });
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
    refusal('nic-no-vnet', vnet, `VNet ${vnet} is named in a network override but does not exist in Proxmox; create it first`),
  );
}

export interface ShellOptions {
  node: string;
  vcenter: string;
}

/** Parameters of `POST /nodes/{node}/qemu` for a migrated VM's shell: no disks, NICs come after. */
export function shellCreateParams(a: VmAssessment, options: ShellOptions): Record<string, string | number> {
  if (a.vmid === undefined || a.cpu === undefined) throw new Error(`${a.name} cannot be built: ${a.refusals.map((r) => r.reason).join('; ')}`);
  const params: Record<string, string | number> = {
    vmid: a.vmid,
    name: a.pveName,
    machine: a.firmware.machine,
    bios: a.firmware.bios,
    sockets: a.cpu.sockets,
    cores: a.cpu.cores,
    memory: a.memoryMb,
    ostype: a.ostype.ostype,
    scsihw: 'virtio-scsi-single',
    onboot: 0,
    tags: 'ferry;migrated',
    description: `Migrated by ferry from vCenter ${options.vcenter}, ${a.moid} ("${a.name}").`,
  };
  if (a.cpu.vcpus !== undefined) params.vcpus = a.cpu.vcpus;
  if (a.firmware.efidisk0) params.efidisk0 = a.firmware.efidisk0;
  return params;
}

/**
 * Parameters of `POST /nodes/{node}/qemu` for a live import at cutover: the shell's settings, the NICs
 * with the VMware MACs, every disk `import-from` its source and the boot order, with live-restore so
 * PVE starts the VM at once and streams the disks in behind it (efidisk0 is created new, as PVE never
 * live-imports it).
 */
export function liveImportCreateParams(
  a: VmAssessment,
  options: ShellOptions,
  sources: Readonly<Record<string, string>>,
  storage: string,
): Record<string, string | number> {
  const params = shellCreateParams(a, options);
  for (const nic of a.nics) params[nic.slot] = netConfigValue(nic);
  for (const d of a.disks) {
    const source = sources[d.slot];
    if (source === undefined) throw new Error(`${a.name}: no source for ${d.slot} (${d.source})`);
    params[d.slot] = `${storage}:0,import-from=${source}`;
  }
  params.boot = bootOrder(a);
  params['live-restore'] = 1;
  return params;
}

/** `set-nic` for every planned NIC whose current value in the VM config differs. */
export function nicActions(a: VmAssessment, currentConfig: Readonly<Record<string, unknown>>): MigrationAction[] {
  const actions: MigrationAction[] = [];
  for (const nic of a.nics) {
    const value = netConfigValue(nic);
    if (!sameNetValue(currentConfig[nic.slot], value)) actions.push({ kind: 'set-nic', vm: a.pveName, vmid: a.vmid!, slot: nic.slot, value });
  }
  return actions;
}

/** PVE writes `virtio=MAC,bridge=X` plus options it added (firewall=0, …): compare the parts ferry sets. */
export function sameNetValue(current: unknown, wanted: string): boolean {
  if (typeof current !== 'string') return false;
  const parts = (s: string) => new Map(s.split(',').map((p) => p.split('=') as [string, string]));
  const have = parts(current);
  for (const [k, v] of parts(wanted)) if (have.get(k)?.toUpperCase() !== v.toUpperCase()) return false;
  return true;
}

/** Boot from the first disk, then the first NIC. */
export function bootOrder(a: Pick<VmAssessment, 'disks' | 'nics'>): string {
  const devices = [a.disks[0]?.slot, a.nics[0]?.slot].filter((d): d is string => Boolean(d));
  return `order=${devices.join(';')}`;
}
