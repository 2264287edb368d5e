import type { PortgroupRecord, VmNic, VmRecord } from '../inventory';
import type { SlotNicSpec } from '../pve-vm-spec';
import { refusal, type Refusal } from './refusal';
import type { VnetPlan } from './vnet-plan';

/** NIC models PVE offers that a migrated guest may already have drivers for. */
export type PveNicModel = 'virtio' | 'e1000' | 'e1000e' | 'vmxnet3' | 'rtl8139';

/** `keep` gives the guest the device it had on VMware where PVE has it (vmxnet3, e1000, e1000e). */
export type NicModelPolicy = PveNicModel | 'keep';

export interface PlannedNic {
  /** `net0`, `net1`, … in the order of the VMware device keys. */
  slot: string;
  /** The VMware MAC, upper case as PVE writes it: the guest keeps its identity (DHCP leases, licences). */
  mac: string;
  model: PveNicModel;
  /** VNet (or bridge) to attach to. */
  bridge: string;
  /** `Network adapter 1 (PG-VLAN100)`. */
  source: string;
}

const KEEPABLE: Record<string, PveNicModel> = { vmxnet3: 'vmxnet3', e1000: 'e1000', e1000e: 'e1000e' };

function nicModel(nic: VmNic, policy: NicModelPolicy): PveNicModel {
  if (policy !== 'keep') return policy;
  return KEEPABLE[nic.deviceType] ?? 'e1000';
}

/** A planned NIC as Proxmox gets it: the VMware MAC and model on its VNet. */
export function pveNic(nic: PlannedNic): SlotNicSpec {
  return { slot: nic.slot, model: nic.model, macaddr: nic.mac, bridge: nic.bridge };
}

/** PVE `netN` value: `model=MAC,bridge=VNET` (the form actions record and configs are compared in). */
export function netConfigValue(nic: Pick<PlannedNic, 'model' | 'mac' | 'bridge'>): string {
  return `${nic.model}=${nic.mac},bridge=${nic.bridge}`;
}

export function normalizeMac(mac: string): string {
  return mac.trim().toUpperCase();
}

/**
 * Maps every NIC of a VM to a VNet, keeping its MAC. A NIC that cannot be mapped is a refusal naming
 * the NIC and its network: the VM is not migrated rather than migrated without a network.
 */
export function mapNics(
  vm: VmRecord,
  portgroupsByKey: ReadonlyMap<string, PortgroupRecord>,
  plan: Pick<VnetPlan, 'byPortgroupKey' | 'byNetworkName' | 'untranslated'>,
  modelPolicy: NicModelPolicy,
): { nics: PlannedNic[]; refusals: Refusal[] } {
  const nics: PlannedNic[] = [];
  const refusals: Refusal[] = [];
  const ordered = [...vm.nics].sort((a, b) => a.key - b.key);
  ordered.forEach((nic, index) => {
    const attachment = nicAttachment(nic, portgroupsByKey, plan);
    if ('refusal' in attachment) {
      refusals.push(attachment.refusal);
      return;
    }
    nics.push({
      slot: `net${index}`,
      mac: normalizeMac(nic.macAddress),
      model: nicModel(nic, modelPolicy),
      bridge: attachment.bridge,
      source: `${nic.label} (${attachment.network})`,
    });
  });
  return { nics, refusals };
}

/** Where a NIC is attached on Proxmox: the VNet its network is translated to, and that network's name. */
export type NicAttachment = { bridge: string; network: string } | { refusal: Refusal };

/** The VNet planned for the NIC's network, or why there is none. */
export function nicAttachment(
  nic: VmNic,
  portgroupsByKey: ReadonlyMap<string, PortgroupRecord>,
  plan: Pick<VnetPlan, 'byPortgroupKey' | 'byNetworkName' | 'untranslated'>,
): NicAttachment {
  const b = nic.backing;
  switch (b.kind) {
    case 'dvportgroup':
      return portgroupAttachment(nic, b.portgroupKey, portgroupsByKey, plan);
    case 'network': {
      const vnet = plan.byNetworkName[b.networkName];
      if (vnet) return { bridge: vnet, network: b.networkName };
      return refused(
        'nic-standard-network',
        `${nic.label} (${b.networkName})`,
        `${nic.label} is on standard-switch network ${b.networkName}; ferry translates distributed portgroups only: move the NIC to a distributed portgroup or map the network with an override`,
      );
    }
    case 'opaque':
      return refused(
        'nic-opaque-network',
        `${nic.label} (${b.opaqueNetworkId})`,
        `${nic.label} is on an opaque (${b.opaqueNetworkType}, e.g. NSX) network, which ferry cannot translate`,
      );
    case 'other':
      return refused(
        'nic-opaque-network',
        nic.label,
        `${nic.label} has a ${b.backingType} backing, which ferry cannot translate`,
      );
  }
}

function portgroupAttachment(
  nic: VmNic,
  portgroupKey: string,
  portgroupsByKey: ReadonlyMap<string, PortgroupRecord>,
  plan: Pick<VnetPlan, 'byPortgroupKey' | 'untranslated'>,
): NicAttachment {
  const pg = portgroupsByKey.get(portgroupKey);
  if (!pg) {
    return refused(
      'nic-unknown-portgroup',
      nic.label,
      `${nic.label} is on portgroup ${portgroupKey}, which discovery did not find`,
    );
  }
  const vnet = plan.byPortgroupKey[pg.key];
  if (vnet) return { bridge: vnet, network: pg.name };
  const why = plan.untranslated.find((u) => u.network === pg.name)?.reason ?? 'no VNet is planned for it';
  return refused('nic-no-vnet', `${nic.label} (${pg.name})`, `${nic.label} is on portgroup ${pg.name}: ${why}`);
}

function refused(...args: Parameters<typeof refusal>): NicAttachment {
  return { refusal: refusal(...args) };
}
