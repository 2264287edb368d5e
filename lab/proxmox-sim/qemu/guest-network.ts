import { isIP } from 'node:net';
import { freePort } from '../../free-port';
import { guestImage } from '../../guest-image/paths';
import { parseVmConf, readVmConfig } from '../../guest-image/per-vm-config';
import { parseNic } from '../../../src/proxmox/nics';
import { DEFAULT_USER_NETWORK, type UserNetwork } from './command-line';

/**
 * How the lab wires a real guest's NICs. PVE puts a tap device on a bridge or VNet; the lab gives each
 * NIC its own QEMU user-mode network (`restrict=on`: the guest reaches nothing outside it) on the
 * guest's own subnet, and forwards loopback ports to the guest's services: nothing binds anything but
 * 127.0.0.1, and no root or network namespace is needed. The simulator reports the forwards through its
 * admin API (`GET /_sim/vms/{vmid}/qemu`).
 *
 * Where the guest's address comes from, per NIC (`netN`):
 * 1. what the lab or a test declared (`PUT /_sim/vms/{vmid}/guest-network`), else
 * 2. the lab guest's own settings on its boot disk (ferry/vm.conf on the ESP, matched by the NIC's MAC;
 *    see lab/guest-image/per-vm-config.ts), with the image's probe port and 22 forwarded, else
 * 3. the VM's cloud-init settings (`ipconfigN`, when it has a cloud-init drive: cloud-init.ts), else
 * 4. nothing: the NIC is on 192.0.2.0/24 without forwards.
 */
export interface GuestNicHint {
  /** The guest's address on this NIC, with prefix (192.0.2.10/24). */
  address: string;
  /** The guest's gateway, which QEMU then plays. */
  gateway?: string;
  /** TCP ports to forward from 127.0.0.1. */
  ports: number[];
}

export type GuestNetworkHints = Record<string, GuestNicHint>;

/** One loopback forward, as the admin API reports it. */
export interface ForwardedPort {
  nic: string;
  mac: string;
  hostAddress: '127.0.0.1';
  hostPort: number;
  guestAddress: string;
  guestPort: number;
  /** Whether QEMU forwards it now: the NIC's link is up and its segment is where the address lives (nic-wiring.ts). */
  connected: boolean;
}

const NET_KEY = /^net\d+$/;
const toInt = (ip: string) => ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);
const toIp = (n: number) => [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');

/** Checks a hint (admin input); returns an error text or undefined. */
export function checkHint(nic: string, hint: GuestNicHint): string | undefined {
  if (!NET_KEY.test(nic)) return `${nic}: not a NIC key (net0, net1, …)`;
  const [ip, prefix] = hint.address?.split('/') ?? [];
  if (isIP(ip ?? '') !== 4 || !/^\d+$/.test(prefix ?? '') || Number(prefix) < 8 || Number(prefix) > 30)
    return `${nic}: address must be IPv4 with a prefix of 8–30, e.g. 192.0.2.10/24`;
  if (hint.gateway !== undefined && isIP(hint.gateway) !== 4) return `${nic}: gateway must be an IPv4 address`;
  if (!Array.isArray(hint.ports) || !hint.ports.every((p) => Number.isInteger(p) && p > 0 && p < 65536))
    return `${nic}: ports must be TCP port numbers`;
  return undefined;
}

/**
 * The user network for a guest address: its subnet, and QEMU's side at the gateway when that lies in
 * the subnet (and is not the guest), else at the subnet's last usable address (or the one before it).
 */
export function userNetworkFor(hint: GuestNicHint | undefined): Omit<UserNetwork, 'forwards'> {
  if (!hint) return { ...DEFAULT_USER_NETWORK };
  const [ip, prefixText] = hint.address.split('/') as [string, string];
  const prefix = Number(prefixText);
  const size = 2 ** (32 - prefix);
  const base = toInt(ip) - (toInt(ip) % size);
  const inSubnet = (addr: string) => toInt(addr) >= base && toInt(addr) < base + size;
  let host = hint.gateway && inSubnet(hint.gateway) && hint.gateway !== ip ? hint.gateway : toIp(base + size - 2);
  if (host === ip) host = toIp(base + size - 3);
  return { net: `${toIp(base)}/${prefix}`, host };
}

/** The guest ports the lab forwards: the lab image's probe and SSH. */
export function guestPorts(): number[] {
  try {
    return [guestImage().manifest.probe.port, 22];
  } catch {
    return [22];
  }
}

/** Hints from the lab guest's settings on its boot disk (raw only), matched to the VM's NICs by MAC. */
export async function hintsFromGuestDisk(diskPath: string, config: Record<string, string>): Promise<GuestNetworkHints> {
  let image;
  try {
    image = guestImage();
  } catch {
    return {};
  }
  const text = await readVmConfig(diskPath, image);
  if (!text) return {};
  const settings = parseVmConf(text);
  const hints: GuestNetworkHints = {};
  for (const [key, value] of Object.entries(config)) {
    if (!NET_KEY.test(key)) continue;
    const mac = parseNic(value).macaddr.toLowerCase();
    const nic = settings.nics.find((n) => n.mac.toLowerCase() === mac);
    if (nic && !nic.address.includes(':'))
      hints[key] = {
        address: nic.address,
        ...(nic.gateway ? { gateway: nic.gateway } : {}),
        ports: [image.manifest.probe.port, 22],
      };
  }
  return hints;
}

/**
 * Every NIC's user network, with a free loopback port for each forwarded guest port; `connected` says
 * which NICs reach their guest address at start (the others' forwards are planned, not installed).
 */
export async function planNetworks(
  config: Record<string, string>,
  hints: GuestNetworkHints,
  connected: (nic: string, guestAddress: string) => boolean = () => true,
): Promise<{ networks: Record<string, UserNetwork>; forwards: ForwardedPort[] }> {
  const networks: Record<string, UserNetwork> = {};
  const forwards: ForwardedPort[] = [];
  const taken = new Set<number>();
  const nextPort = async () => {
    for (;;) {
      const port = await freePort();
      if (!taken.has(port)) return (taken.add(port), port);
    }
  };
  for (const [key, value] of Object.entries(config)) {
    if (!NET_KEY.test(key)) continue;
    const hint = hints[key];
    const network: UserNetwork = { ...userNetworkFor(hint), forwards: [] };
    const guestAddress = hint?.address.split('/')[0];
    for (const guestPort of guestAddress ? hint!.ports : []) {
      const hostPort = await nextPort();
      const reaches = connected(key, guestAddress!);
      if (reaches) network.forwards.push({ hostPort, guestAddress: guestAddress!, guestPort });
      forwards.push({
        nic: key,
        mac: parseNic(value).macaddr,
        hostAddress: '127.0.0.1',
        hostPort,
        guestAddress: guestAddress!,
        guestPort,
        connected: reaches,
      });
    }
    networks[key] = network;
  }
  return { networks, forwards };
}
