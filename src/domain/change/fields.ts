import { compareCodeUnits } from '../order';
import type { SlotNicSpec } from '../pve-vm-spec';
import type { NicView } from './vm-config';

/**
 * The fields ferry manages on a built VM, each compared as canonical text on both sides: MiB for
 * memory, bytes for a disk's size, `1` for a flag that is on (off and unset are the same), VLAN lists
 * sorted and without ranges. Undefined: not set.
 */

export const FIELD_KINDS = [
  'vcpus',
  'memory',
  'disk',
  'disk.size',
  'disk.storage',
  'disk.option',
  'nic',
  'nic.bridge',
  'nic.tag',
  'nic.trunks',
  'nic.mtu',
  'nic.rate',
  'nic.queues',
  'nic.link_down',
  'nic.firewall',
  'nic.mac',
] as const;
export type FieldKind = (typeof FIELD_KINDS)[number];

export type FieldValue = string | undefined;

export const NIC_FIELDS = ['bridge', 'tag', 'trunks', 'mtu', 'rate', 'queues', 'link_down', 'firewall', 'mac'] as const;
export type NicField = (typeof NIC_FIELDS)[number];
export type NicFields = Record<NicField, FieldValue>;

/** A number as text without trailing zeros (`10.50` → `10.5`); 0 is unset where Proxmox treats it so. */
function canonicalNumber(value: string | number | undefined, zeroIsUnset = false): FieldValue {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isFinite(n)) return String(value);
  return zeroIsUnset && n === 0 ? undefined : String(n);
}

function canonicalFlag(value: string | boolean | undefined): FieldValue {
  return value === true || value === '1' ? '1' : undefined;
}

/** VLAN trunks (`10;20-22`) as the sorted list of VIDs (`10;20;21;22`). */
export function canonicalTrunks(value: string | readonly number[] | undefined): FieldValue {
  if (value === undefined) return undefined;
  const vids = new Set<number>();
  const parts = typeof value === 'string' ? value.split(';').filter(Boolean) : value.map(String);
  for (const part of parts) {
    const [from, to = from] = part.split('-').map(Number) as [number, number?];
    for (let vid = from; vid <= to; vid++) vids.add(vid);
  }
  return vids.size > 0 ? [...vids].sort((a, b) => a - b).join(';') : undefined;
}

/** The managed fields of a NIC as NetBox wants it. The MAC is unmanaged (undefined) when NetBox has none. */
export function nicFieldsOfSpec(nic: SlotNicSpec): NicFields {
  return {
    bridge: nic.bridge,
    tag: canonicalNumber(nic.tag),
    trunks: canonicalTrunks(nic.trunks),
    mtu: canonicalNumber(nic.mtu),
    rate: canonicalNumber(nic.rate, true),
    queues: canonicalNumber(nic.queues, true),
    link_down: canonicalFlag(nic.linkDown),
    firewall: canonicalFlag(nic.firewall),
    mac: nic.macaddr?.toUpperCase(),
  };
}

/** The managed fields of a NIC as a Proxmox config has it. */
export function nicFieldsOfView(nic: NicView): NicFields {
  const o = nic.options;
  return {
    bridge: o.bridge,
    tag: canonicalNumber(o.tag),
    trunks: canonicalTrunks(o.trunks),
    mtu: canonicalNumber(o.mtu),
    rate: canonicalNumber(o.rate, true),
    queues: canonicalNumber(o.queues, true),
    link_down: canonicalFlag(o.link_down),
    firewall: canonicalFlag(o.firewall),
    mac: nic.mac || undefined,
  };
}

/** Slots in their natural order, deterministically: by bus, then by number (`scsi2` before `scsi10`). */
export function naturalOrder(a: string, b: string): number {
  const [, busA = a, numA = ''] = /^([a-z]+)(\d*)$/.exec(a) ?? [];
  const [, busB = b, numB = ''] = /^([a-z]+)(\d*)$/.exec(b) ?? [];
  if (busA !== busB) return compareCodeUnits(busA, busB);
  return Number(numA) - Number(numB) || compareCodeUnits(a, b);
}
