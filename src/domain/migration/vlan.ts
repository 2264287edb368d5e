import type { PortgroupRecord } from '../inventory';

/** What a distributed portgroup is for the purpose of translation into Proxmox SDN. */
export type PortgroupClass =
  | { kind: 'access'; tag: number }
  | { kind: 'untagged' }
  | { kind: 'uplink' }
  | { kind: 'trunk'; ranges: Array<{ start: number; end: number }> }
  | { kind: 'pvlan'; pvlanId: number };

/** VLAN 0 in a VlanIdSpec means "no tag"; the uplink portgroup carries the switch's uplinks, not VMs. */
export function classifyPortgroup(pg: PortgroupRecord): PortgroupClass {
  if (pg.uplink) return { kind: 'uplink' };
  switch (pg.vlan.kind) {
    case 'access':
      return pg.vlan.vlanId === 0 ? { kind: 'untagged' } : { kind: 'access', tag: pg.vlan.vlanId };
    case 'trunk':
      return { kind: 'trunk', ranges: pg.vlan.ranges };
    case 'pvlan':
      return { kind: 'pvlan', pvlanId: pg.vlan.pvlanId };
    case 'none':
      return { kind: 'untagged' };
  }
}

export function describeRanges(ranges: ReadonlyArray<{ start: number; end: number }>): string {
  return ranges.map((r) => (r.start === r.end ? `${r.start}` : `${r.start}-${r.end}`)).join(',');
}
