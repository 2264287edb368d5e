import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { guestImage, type GuestImage, type GuestVariant } from './paths';
import { descriptorNaming } from './vmdk-descriptor';

const run = promisify(execFile);

/**
 * A VM's own settings for the lab guest. They travel in the disk itself, as the file ferry/vm.conf on
 * the guest's ESP (FAT, written with mtools: no root, no mount, no loop device), and the guest's
 * ferry-guest-config.service turns them into systemd-networkd .network files at every boot:
 * matched by MAC in the `mac` variant, by interface name (ens192, ens224, …) in the `ens192` variant.
 * The same write works on a raw copy and on a `-flat.vmdk` extent (the same bytes).
 */
export interface GuestNic {
  mac: string;
  /** CIDR, e.g. 192.0.2.10/24. */
  address: string;
  gateway?: string;
}

export interface GuestVmConfig {
  hostname?: string;
  dns?: string[];
  /** At most 10 (NIC0 … NIC9), in the VM's NIC order. */
  nics: GuestNic[];
}

const MAC = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i;
const HOSTNAME = /^[A-Za-z0-9]([A-Za-z0-9.-]{0,62})$/;

function checkCidr(value: string, what: string): void {
  const [ip, prefix, ...rest] = value.split('/');
  const family = isIP(ip ?? '');
  const max = family === 6 ? 128 : 32;
  if (!family || rest.length || prefix === undefined || !/^\d+$/.test(prefix) || Number(prefix) > max) {
    throw new Error(`${what}: ${JSON.stringify(value)} is not an address with a prefix length (e.g. 192.0.2.10/24)`);
  }
}

/** The text of ferry/vm.conf (KEY=VALUE lines). Throws on a value the guest would refuse. */
export function renderVmConf(config: GuestVmConfig): string {
  if (config.nics.length > 10) throw new Error(`the lab guest takes at most 10 NICs, not ${config.nics.length}`);
  const lines = ['# ferry lab guest settings (lab/guest-image/per-vm-config.ts), read at boot by ferry-guest-config'];
  if (config.hostname !== undefined) {
    if (!HOSTNAME.test(config.hostname))
      throw new Error(`hostname ${JSON.stringify(config.hostname)} is not a plain host name`);
    lines.push(`HOSTNAME=${config.hostname}`);
  }
  if (config.dns?.length) {
    for (const server of config.dns)
      if (!isIP(server)) throw new Error(`DNS server ${JSON.stringify(server)} is not an IP address`);
    lines.push(`DNS=${config.dns.join(',')}`);
  }
  config.nics.forEach((nic, i) => {
    if (!MAC.test(nic.mac)) throw new Error(`NIC${i}: ${JSON.stringify(nic.mac)} is not a MAC address`);
    checkCidr(nic.address, `NIC${i}`);
    lines.push(`NIC${i}_MAC=${nic.mac.toLowerCase()}`, `NIC${i}_ADDRESS=${nic.address}`);
    if (nic.gateway !== undefined) {
      if (!isIP(nic.gateway)) throw new Error(`NIC${i}: gateway ${JSON.stringify(nic.gateway)} is not an IP address`);
      lines.push(`NIC${i}_GATEWAY=${nic.gateway}`);
    }
  });
  return `${lines.join('\n')}\n`;
}

/** The inverse of renderVmConf: the settings a ferry/vm.conf text holds (unknown lines ignored). */
export function parseVmConf(text: string): GuestVmConfig {
  const values = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m) values.set(m[1]!, m[2]!);
  }
  const nics: GuestNic[] = [];
  for (let i = 0; values.has(`NIC${i}_MAC`) && values.has(`NIC${i}_ADDRESS`); i++) {
    const gateway = values.get(`NIC${i}_GATEWAY`);
    nics.push({
      mac: values.get(`NIC${i}_MAC`)!,
      address: values.get(`NIC${i}_ADDRESS`)!,
      ...(gateway ? { gateway } : {}),
    });
  }
  const hostname = values.get('HOSTNAME');
  const dns = values.get('DNS');
  return { ...(hostname ? { hostname } : {}), ...(dns ? { dns: dns.split(',') } : {}), nics };
}

const mtoolsEnv = () => ({ ...process.env, MTOOLS_SKIP_CHECK: '1' });
const espImage = (disk: string, image: GuestImage) => `${disk}@@${image.manifest.esp.offsetBytes}`;

/** Writes (or replaces) the VM's settings on a copy of the guest disk (raw or -flat.vmdk). */
export async function writeVmConfig(
  disk: string,
  config: GuestVmConfig,
  image: GuestImage = guestImage(),
): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ferry-vmconf-'));
  try {
    const file = path.join(dir, 'vm.conf');
    writeFileSync(file, renderVmConf(config));
    await run('mcopy', ['-o', '-i', espImage(disk, image), file, `::/${image.manifest.esp.vmConfPath}`], {
      env: mtoolsEnv(),
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The settings file as it is on a disk, or undefined when the disk has none. */
export async function readVmConfig(disk: string, image: GuestImage = guestImage()): Promise<string | undefined> {
  try {
    const { stdout } = await run('mtype', ['-i', espImage(disk, image), `::/${image.manifest.esp.vmConfPath}`], {
      env: mtoolsEnv(),
    });
    return stdout;
  } catch {
    return undefined;
  }
}

/** A VM's own copy of a guest disk (sparse, like the cached one), with its settings written in. */
export async function makeGuestDisk(
  variant: GuestVariant,
  dest: string,
  config: GuestVmConfig,
  image: GuestImage = guestImage(),
): Promise<string> {
  await run('cp', ['--sparse=always', image.raw(variant), dest]);
  await writeVmConfig(dest, config, image);
  return dest;
}

/** The same as VMware keeps it, in `dir`: `<name>.vmdk`, the image's descriptor naming `<name>-flat.vmdk`. */
export async function makeGuestVmdk(
  variant: GuestVariant,
  dir: string,
  name: string,
  config: GuestVmConfig,
  image: GuestImage = guestImage(),
): Promise<{ descriptor: string; flat: string }> {
  mkdirSync(dir, { recursive: true });
  const flat = await makeGuestDisk(variant, path.join(dir, `${name}-flat.vmdk`), config, image);
  const descriptor = path.join(dir, `${name}.vmdk`);
  writeFileSync(descriptor, descriptorNaming(readFileSync(image.vmdk(variant), 'utf8'), image.flat(variant), flat));
  return { descriptor, flat };
}
