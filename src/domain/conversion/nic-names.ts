/**
 * Keeping a guest's NIC names across the move. On VMware a NIC is named by its PCI slot (ens192,
 * ens224, …); on Proxmox the same NIC, now virtio in another slot, would be ens18, and a network
 * configuration that names ens192 leaves it without an address. ferry keeps the MACs, so it pins each
 * NIC's old name to its MAC (a systemd .link file and a udev rule, as the field does it), in the guest,
 * before virt-v2v rebuilds the initramfs (which copies both, and names NICs there already).
 */

/** A NIC name a guest's network configuration uses, and the MAC it binds it to when it says one. */
export interface ConfiguredNic {
  name: string;
  mac?: string;
  file: string;
  /**
   * `pin`: a .link file, udev rule or netplan set-name already names this MAC. `match`: the config follows
   * the MAC, whatever the name. Absent with a MAC: the config needs this name on this MAC (ferry pins it).
   */
  binding?: 'pin' | 'match';
}

export interface NicPin {
  slot: string;
  /** Lower case, as udev and systemd compare it. */
  mac: string;
  /** The name the NIC had on VMware, which the guest keeps. */
  name: string;
  /** What Proxmox's virtio NIC in this slot would be named without the pin. */
  pveName: string;
  /** `mac`: the guest's configuration gives this MAC this name. `order`: names and NICs matched in slot order. */
  basis: 'mac' | 'order';
}

import { compareCodeUnits } from '../order';

const MAC = /([0-9a-f]{2}(?::[0-9a-f]{2}){5})/i;
/** Names the kernel or udev give a physical NIC (ens192, enp11s0, eno1, eth0): not bridges, bonds or VLANs. */
const PHYSICAL = /^(en[a-z][a-z0-9]*|eth\d+)$/;

const lower = (mac: string) => mac.toLowerCase();

/** Every NIC name the configuration files use, with the MAC a file binds it to. */
export function configuredNics(files: ReadonlyArray<{ path: string; text: string }>): ConfiguredNic[] {
  const found: ConfiguredNic[] = [];
  for (const { path, text } of files) {
    if (/\/etc\/network\/interfaces(\.d\/.*)?$/.test(path)) found.push(...ifupdownNics(path, text));
    else if (path.startsWith('/etc/netplan/')) found.push(...netplanNics(path, text));
    else if (/\/ifcfg-[^/]+$/.test(path)) found.push(...ifcfgNics(path, text));
    else if (path.startsWith('/etc/NetworkManager/')) found.push(...keyfileNics(path, text));
    else if (path.endsWith('.network')) found.push(...iniNics(path, text, 'Name', 'MACAddress', 'match'));
    else if (path.endsWith('.link')) found.push(...iniNics(path, text, 'Name', 'MACAddress', 'pin'));
    else if (path.endsWith('.rules')) found.push(...udevNics(path, text));
  }
  return found;
}

function ifupdownNics(file: string, text: string): ConfiguredNic[] {
  const names = new Set<string>();
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    const stanza = /^(?:auto|allow-hotplug|allow-auto|allow-[a-z]+|iface)\s+(.+)$/.exec(line);
    if (stanza) {
      const words = stanza[1]!.split(/\s+/);
      // `iface NAME inet …` names one; `auto a b` may name several.
      for (const w of line.startsWith('iface') ? words.slice(0, 1) : words) names.add(w.replace(/[.:].*$/, ''));
      continue;
    }
    const ports = /^(?:bridge[-_]ports|bond[-_]slaves|vlan[-_]raw[-_]device)\s+(.+)$/.exec(line);
    if (ports) for (const w of ports[1]!.split(/\s+/)) names.add(w);
  }
  return [...names].filter((n) => PHYSICAL.test(n)).map((name) => ({ name, file }));
}

function netplanNics(file: string, text: string): ConfiguredNic[] {
  const out: ConfiguredNic[] = [];
  const lines = text.split('\n');
  let inEthernets = -1;
  let current: { name: string; indent: number; mac?: string; setName?: string } | undefined;
  const flush = () => {
    if (!current) return;
    // With a MAC match the key is only an id: the NIC is the one with the MAC, named by set-name if at all.
    if (current.mac)
      out.push({
        name: current.setName ?? '',
        mac: lower(current.mac),
        file,
        binding: current.setName ? 'pin' : 'match',
      });
    else if (PHYSICAL.test(current.setName ?? current.name)) out.push({ name: current.setName ?? current.name, file });
    current = undefined;
  };
  for (const raw of lines) {
    const line = raw.replace(/\s+#.*$/, '');
    if (!line.trim()) continue;
    const indent = line.length - line.trimStart().length;
    const key = /^\s*([A-Za-z0-9_.-]+):\s*(.*)$/.exec(line);
    if (inEthernets >= 0 && indent <= inEthernets) {
      flush();
      inEthernets = -1;
    }
    if (key?.[1] === 'ethernets') {
      inEthernets = indent;
      continue;
    }
    if (inEthernets < 0 || !key) continue;
    if (!current || indent <= current.indent) {
      flush();
      current = { name: key[1]!, indent };
      continue;
    }
    if (key[1] === 'macaddress') current.mac = MAC.exec(key[2]!)?.[1];
    if (key[1] === 'set-name') current.setName = key[2]!.replace(/["']/g, '').trim();
  }
  flush();
  return out;
}

function ifcfgNics(file: string, text: string): ConfiguredNic[] {
  const value = (k: string) => new RegExp(`^\\s*${k}=["']?([^"'\\s]+)`, 'm').exec(text)?.[1];
  const name = value('DEVICE') ?? /ifcfg-([^/]+)$/.exec(file)![1]!;
  const mac = value('HWADDR');
  if (mac) return [{ name, mac: lower(mac), file, binding: 'match' }];
  return PHYSICAL.test(name) ? [{ name, file }] : [];
}

function keyfileNics(file: string, text: string): ConfiguredNic[] {
  const name = /^\s*interface-name=(\S+)/m.exec(text)?.[1];
  const mac = /^\s*mac-address=(\S+)/m.exec(text)?.[1];
  if (mac && MAC.test(mac)) return [{ name: name ?? '', mac: lower(MAC.exec(mac)![1]!), file, binding: 'match' }];
  return name && PHYSICAL.test(name) ? [{ name, file }] : [];
}

function iniNics(
  file: string,
  text: string,
  nameKey: string,
  macKey: string,
  binding: 'pin' | 'match',
): ConfiguredNic[] {
  const name = new RegExp(`^\\s*${nameKey}=(\\S+)`, 'm').exec(text)?.[1];
  const mac = new RegExp(`^\\s*${macKey}=(\\S+)`, 'm').exec(text)?.[1];
  if (mac && MAC.test(mac)) {
    // A .network file that matches by MAC follows the NIC; one that also asks for a name needs that name
    // on that MAC (no binding: a pin). A .link file names it.
    const follows = binding === 'match' && name ? undefined : binding;
    return [{ name: name ?? '', mac: lower(MAC.exec(mac)![1]!), file, ...(follows ? { binding: follows } : {}) }];
  }
  if (binding === 'pin') return [];
  return (name ?? '')
    .split(/\s+/)
    .filter((n) => PHYSICAL.test(n))
    .map((n) => ({ name: n, file }));
}

function udevNics(file: string, text: string): ConfiguredNic[] {
  const out: ConfiguredNic[] = [];
  for (const line of text.split('\n')) {
    if (/^\s*#/.test(line)) continue;
    const mac = /ATTR\{address\}=="([^"]+)"/.exec(line)?.[1];
    const name = /NAME:?="([^"]+)"/.exec(line)?.[1];
    if (mac && name && MAC.test(mac)) out.push({ name, mac: lower(mac), file, binding: 'pin' });
  }
  return out;
}

const slotNumber = (slot: string) => Number(/^net(\d+)$/.exec(slot)?.[1] ?? 0);

/** The name qemu-server's virtio NIC `netN` gets in a guest: PVE puts net0 in PCI slot 18 (0x12), net1 in 19, … */
export function pveNicName(slot: string): string {
  return `ens${18 + slotNumber(slot)}`;
}

/** VMware's slot-derived names in slot order (ens192 < ens224 < ens256 < ens1184), then the rest by name. */
function bySlotOrder(a: string, b: string): number {
  const n = (s: string) => (/^ens(\d+)$/.exec(s) ? Number(/^ens(\d+)$/.exec(s)![1]) : Number.POSITIVE_INFINITY);
  return n(a) - n(b) || compareCodeUnits(a, b);
}

/**
 * The pins that keep each NIC's old name. A name the configuration binds to a MAC is pinned to it; a
 * configuration that follows the MAC needs none; the remaining names go to the remaining NICs in slot
 * order (VMware numbers slots in NIC order), which the plan shows so that a person can check it. A
 * guest on kernel names (`net.ifnames=0`: eth0, eth1 in PCI order) keeps them without pins: Proxmox keeps
 * the NIC order.
 */
export function nicPins(
  nics: ReadonlyArray<{ slot: string; mac: string }>,
  configured: readonly ConfiguredNic[],
  kernelCmdline: string,
): { pins: NicPin[]; notes: string[] } {
  const notes: string[] = [];
  if (/(^|\s)net\.ifnames=0(\s|$)/.test(kernelCmdline)) {
    return {
      pins: [],
      notes: [
        'the guest names NICs by kernel order (net.ifnames=0): eth0, eth1, … stay in NIC order on Proxmox, no pins needed',
      ],
    };
  }
  const pins: NicPin[] = [];
  const settled = new Set<string>(); // MACs that need no (further) pin
  const usedNames = new Set<string>();
  for (const c of configured) {
    const nic = c.mac ? nics.find((n) => lower(n.mac) === c.mac) : undefined;
    if (!nic || settled.has(lower(nic.mac))) continue;
    settled.add(lower(nic.mac));
    if (c.name) usedNames.add(c.name);
    if (c.binding === 'pin')
      notes.push(`${nic.slot} (${lower(nic.mac)}) is already named ${c.name} by its MAC in ${c.file}`);
    else if (c.binding === 'match')
      notes.push(`${nic.slot} (${lower(nic.mac)}) is configured by its MAC in ${c.file}: its name does not matter`);
    else if (PHYSICAL.test(c.name))
      pins.push({ slot: nic.slot, mac: lower(nic.mac), name: c.name, pveName: pveNicName(nic.slot), basis: 'mac' });
  }
  const names = [...new Set(configured.filter((c) => !c.mac && !usedNames.has(c.name)).map((c) => c.name))].sort(
    bySlotOrder,
  );
  const free = [...nics]
    .filter((n) => !settled.has(lower(n.mac)))
    .sort((a, b) => slotNumber(a.slot) - slotNumber(b.slot));
  names.forEach((name, i) => {
    const nic = free[i];
    if (!nic) {
      notes.push(
        `the guest's network configuration names ${name}, which no VMware NIC is left to be (${configured.find((c) => c.name === name)!.file})`,
      );
      return;
    }
    pins.push({ slot: nic.slot, mac: lower(nic.mac), name, pveName: pveNicName(nic.slot), basis: 'order' });
  });
  for (const nic of free.slice(names.length))
    notes.push(`${nic.slot} (${lower(nic.mac)}) is not named in the guest's network configuration: no pin`);
  return {
    pins: pins.filter((p) => p.name !== p.pveName).sort((a, b) => slotNumber(a.slot) - slotNumber(b.slot)),
    notes,
  };
}

/** The systemd .link file that gives a NIC its old name (systemd-udevd, also in the initramfs). */
export function linkFile(pin: NicPin): { path: string; content: string } {
  return {
    path: `/etc/systemd/network/10-ferry-${pin.name}.link`,
    content: `# Written by ferry at migration from VMware: this NIC keeps the name it had there.\n[Match]\nMACAddress=${pin.mac}\n\n[Link]\nName=${pin.name}\n`,
  };
}

/** The udev rule that does the same for guests whose udev has no .link support (and reads as the field writes it). */
export function udevRules(pins: readonly NicPin[]): { path: string; content: string } {
  const lines = pins.map(
    (p) => `SUBSYSTEM=="net", ACTION=="add", DRIVERS=="?*", ATTR{address}=="${p.mac}", NAME="${p.name}"`,
  );
  return {
    path: '/etc/udev/rules.d/70-ferry-persistent-net.rules',
    content: `# Written by ferry at migration from VMware: NICs keep the names they had there.\n${lines.join('\n')}\n`,
  };
}

export function describePin(pin: NicPin): string {
  const how = pin.basis === 'mac' ? 'its MAC in the guest configuration' : 'slot order';
  return `${pin.slot} ${pin.mac}: ${pin.name} on VMware, ${pin.pveName} on Proxmox without a pin: pinned to ${pin.name} (by ${how})`;
}
