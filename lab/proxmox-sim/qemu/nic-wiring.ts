import { parseNic } from '../../../src/proxmox/nics';
import { qmpCommand } from '../../qemu/qmp';
import type { ForwardedPort } from './guest-network';

/**
 * Which network a real guest's NIC is on, and whether the lab's loopback ports reach the guest through
 * it. On PVE a NIC's tap device sits on a bridge (and a VLAN tag); moving it to another bridge or VLAN
 * (vmconfig_update_net's tap_unplug/tap_plug) keeps the guest's device and MAC, and the guest answers
 * on its address only where that address's subnet lives. The lab models that with two facts:
 *
 * - where each subnet lives (`PUT /_sim/subnets`: `{"198.51.100.0/24": {"bridge": "vmbr0", "tag": 300}}`);
 *   a subnet no one placed lives everywhere, which is the lab's default (no VLANs modelled);
 * - each NIC's segment (bridge, tag) and link state (set_link), followed live.
 *
 * A forward to the guest's address is installed in QEMU's user network (HMP hostfwd_add) while its NIC's
 * link is up and its segment is where the address lives, and removed (hostfwd_remove) otherwise: the
 * loopback port then refuses connections, as a host on the wrong VLAN or with its cable pulled does not
 * answer.
 */
export interface Segment {
  bridge: string;
  tag?: number;
}

export interface NicWiring {
  segment: Segment;
  linkUp: boolean;
}

const toInt = (ip: string) => ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);

/** A NIC value's bridge and tag. */
export function segmentOf(value: string): Segment {
  const { options } = parseNic(value);
  return { bridge: options.bridge ?? '', ...(options.tag !== undefined ? { tag: Number(options.tag) } : {}) };
}

/** The wiring of every NIC of a config, as a start leaves it (`link_down=1`: the link is set down). */
export function wiringOf(config: Record<string, string>): Map<string, NicWiring> {
  const wiring = new Map<string, NicWiring>();
  for (const [key, value] of Object.entries(config)) {
    if (!/^net\d+$/.test(key)) continue;
    wiring.set(key, { segment: segmentOf(value), linkUp: parseNic(value).options.link_down !== '1' });
  }
  return wiring;
}

/** Where subnets live on the lab's network. */
export class SubnetHomes {
  private readonly homes = new Map<string, Segment>();

  /** Checks and records homes; `null` forgets one. Returns an error text for bad input. */
  set(entries: Record<string, Segment | null>): string | undefined {
    for (const [subnet, home] of Object.entries(entries)) {
      const m = /^(\d{1,3}(?:\.\d{1,3}){3})\/(\d{1,2})$/.exec(subnet);
      if (!m || Number(m[2]) > 32 || m[1]!.split('.').some((o) => Number(o) > 255))
        return `${subnet}: not an IPv4 subnet (198.51.100.0/24)`;
      if (home === null) continue;
      if (typeof home?.bridge !== 'string' || !/^[-_.\w]+$/.test(home.bridge))
        return `${subnet}: bridge must be a bridge or VNet name`;
      if (home.tag !== undefined && !(Number.isInteger(home.tag) && home.tag >= 1 && home.tag <= 4094))
        return `${subnet}: tag must be a VLAN tag (1-4094)`;
    }
    for (const [subnet, home] of Object.entries(entries)) {
      if (home === null) this.homes.delete(subnet);
      else this.homes.set(subnet, { bridge: home.bridge, ...(home.tag !== undefined ? { tag: home.tag } : {}) });
    }
    return undefined;
  }

  list(): Record<string, Segment> {
    return Object.fromEntries(this.homes);
  }

  /** Whether an address answers on a segment: its subnet lives there (or nowhere in particular). */
  reaches(address: string, segment: Segment): boolean {
    let placed = false;
    for (const [subnet, home] of this.homes) {
      const [base, prefix] = subnet.split('/') as [string, string];
      const size = 2 ** (32 - Number(prefix));
      const start = toInt(base) - (toInt(base) % size);
      if (toInt(address) < start || toInt(address) >= start + size) continue;
      placed = true;
      if (home.bridge === segment.bridge && home.tag === segment.tag) return true;
    }
    return !placed;
  }
}

/** Whether a forward should be in place now. */
export const forwardWanted = (f: ForwardedPort, wiring: NicWiring | undefined, homes: SubnetHomes) =>
  !!wiring && wiring.linkUp && homes.reaches(f.guestAddress, wiring.segment);

/** Adds or removes each forward of a running QEMU so that it matches its NIC's wiring. */
export async function syncForwards(
  qmp: string,
  forwards: ForwardedPort[],
  wiring: Map<string, NicWiring>,
  homes: SubnetHomes,
): Promise<void> {
  for (const f of forwards) {
    const wanted = forwardWanted(f, wiring.get(f.nic), homes);
    if (wanted === f.connected) continue;
    const rule = `tcp:127.0.0.1:${f.hostPort}`;
    const line = wanted
      ? `hostfwd_add ${f.nic} ${rule}-${f.guestAddress}:${f.guestPort}`
      : `hostfwd_remove ${f.nic} ${rule}`;
    const answer = String(await qmpCommand(qmp, 'human-monitor-command', { 'command-line': line })).trim();
    if (/could not|not found|invalid/i.test(answer)) throw new Error(`${line}: ${answer}`);
    f.connected = wanted;
  }
}
