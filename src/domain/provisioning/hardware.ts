import type { SlotNicSpec } from '../pve-vm-spec';
import type { NicSpec, ProvisionSpec } from './spec';
import type { PlacedSpec } from './placement';

/**
 * What a spec means for Proxmox, in the order ferry builds it: the bare VM (firmware, controller,
 * agent, tags; no disks or NICs), then each disk and NIC by its slot, then the remaining options
 * through the config API.
 */
export interface BareVm {
  node: string;
  vmid: number;
  name: string;
  machine: 'q35';
  bios: 'ovmf';
  efidisk: { storage: string; efitype: '4m'; preEnrolledKeys: boolean };
  cores: number;
  sockets: number;
  memory: number;
  ostype: string;
  scsihw: 'virtio-scsi-single';
  agent: string;
  tags: string[];
  description?: string;
}

export function bareVm(spec: PlacedSpec, vmid: number): BareVm {
  return {
    node: spec.node,
    vmid,
    name: spec.name,
    machine: 'q35',
    bios: 'ovmf',
    efidisk: { storage: efiStorageOf(spec), efitype: '4m', preEnrolledKeys: spec.secureBoot !== false },
    cores: spec.cores,
    sockets: spec.sockets,
    memory: spec.memoryMiB,
    ostype: spec.ostype,
    scsihw: 'virtio-scsi-single',
    agent: 'enabled=1',
    tags: spec.tags,
    ...(spec.description ? { description: spec.description } : {}),
  };
}

export function efiStorageOf(spec: ProvisionSpec): string {
  // validateSpec guarantees one of the two.
  return spec.efiStorage ?? spec.disks[0]!.storage;
}

/** The options set after disks and NICs: the ISO as a CD-ROM, the boot order, and the extras. */
export function vmOptions(spec: ProvisionSpec): Record<string, string> {
  const order = [...spec.disks.map((d) => d.slot), ...(spec.iso ? ['ide2'] : []), ...spec.nics.map((n) => n.slot)];
  return {
    ...(spec.iso ? { ide2: `${spec.iso},media=cdrom` } : {}),
    ...(order.length > 0 ? { boot: `order=${order.join(';')}` } : {}),
    ...spec.extras,
  };
}

/**
 * A spec's NIC as Proxmox has it (`netN`): the network is its bridge, the VLAN its tag; a MAC only when
 * the spec names one (else Proxmox makes one). `link_down` is written only to disconnect.
 */
export function pveNicOf(nic: NicSpec): SlotNicSpec {
  return {
    slot: nic.slot,
    model: nic.model,
    bridge: nic.network,
    ...(nic.vlan !== undefined ? { tag: nic.vlan } : {}),
    ...(nic.trunks !== undefined ? { trunks: nic.trunks } : {}),
    ...(nic.firewall !== undefined ? { firewall: nic.firewall } : {}),
    ...(nic.linkDown ? { linkDown: true } : {}),
    ...(nic.mtu !== undefined ? { mtu: nic.mtu } : {}),
    ...(nic.queues !== undefined ? { queues: nic.queues } : {}),
    ...(nic.rate !== undefined ? { rate: nic.rate } : {}),
    ...(nic.mac ? { macaddr: nic.mac } : {}),
  };
}

/** `net3` → 3. */
export function nicIndex(slot: string): number {
  return Number(slot.slice(3));
}

/** The storages, networks and ISO a spec needs to exist on its node (checked before anything is built). */
export function requirements(spec: PlacedSpec): { node: string; storages: string[]; networks: string[]; iso?: string } {
  return {
    node: spec.node,
    storages: [...new Set([efiStorageOf(spec), ...spec.disks.map((d) => d.storage)])],
    networks: [...new Set(spec.nics.map((n) => n.network))],
    ...(spec.iso ? { iso: spec.iso } : {}),
  };
}

/** `web1` in `lab.example.com` → `web1.lab.example.com` (no trailing dot). */
export function fqdn(name: string, zone: string): string {
  return `${name}.${zone.replace(/\.$/, '')}`.toLowerCase();
}

/** `192.0.2.10/24` → `192.0.2.10`. */
export function hostAddress(cidr: string): string {
  return cidr.split('/')[0]!;
}
