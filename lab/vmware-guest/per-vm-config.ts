import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { vmwareGuestImage, type VmwareFirmware, type VmwareGuestImage } from './paths';

const run = promisify(execFile);

/**
 * A VM's own settings in its copy of the VMware-native guest, where a Debian installed on VMware keeps
 * them: /etc/hostname, /etc/hosts, /etc/network/interfaces (ifupdown, `allow-hotplug ens192` with a
 * static address: bound to VMware's NIC name, which is what conversion must keep) and /etc/machine-id.
 * Written into the ext4 root with debugfs at the partition's offset: no root mount, no loop device.
 */
export interface VmwareGuestConfig {
  hostname: string;
  /** In NIC order; named as VMware's slots name them (ens192, ens224, …). */
  nics: Array<{ address: string; gateway?: string }>;
}

const HOSTNAME = /^[A-Za-z0-9]([A-Za-z0-9-]{0,62})$/;

export function renderInterfaces(config: VmwareGuestConfig, names: readonly string[]): string {
  if (config.nics.length > names.length)
    throw new Error(`the VMware-native guest names ${names.length} NICs, not ${config.nics.length}`);
  const lines = [
    '# This file describes the network interfaces available on your system',
    '# and how to activate them. For more information, see interfaces(5).',
    '',
    'source /etc/network/interfaces.d/*',
    '',
    '# The loopback network interface',
    'auto lo',
    'iface lo inet loopback',
  ];
  config.nics.forEach((nic, i) => {
    const [ip, prefix] = nic.address.split('/');
    if (isIP(ip ?? '') !== 4 || !/^\d+$/.test(prefix ?? ''))
      throw new Error(`NIC ${i}: ${nic.address} is not an IPv4 address with a prefix`);
    if (nic.gateway !== undefined && isIP(nic.gateway) !== 4)
      throw new Error(`NIC ${i}: gateway ${nic.gateway} is not an IPv4 address`);
    lines.push(
      '',
      i === 0 ? '# The primary network interface' : `# Network interface ${i + 1}`,
      `allow-hotplug ${names[i]}`,
      `iface ${names[i]} inet static`,
      `\taddress ${nic.address}`,
    );
    if (nic.gateway) lines.push(`\tgateway ${nic.gateway}`);
  });
  return `${lines.join('\n')}\n`;
}

function files(config: VmwareGuestConfig, image: VmwareGuestImage): Record<string, string> {
  if (!HOSTNAME.test(config.hostname))
    throw new Error(`hostname ${JSON.stringify(config.hostname)} is not a plain host name`);
  return {
    hostname: `${config.hostname}\n`,
    hosts: `127.0.0.1\tlocalhost\n127.0.1.1\t${config.hostname}\n::1\tlocalhost ip6-localhost ip6-loopback\n`,
    'network/interfaces': renderInterfaces(config, image.manifest.nicNames),
    // Every installed system has one; each VM its own (virt-customize would otherwise make one up).
    'machine-id': `${createHash('md5').update(`ferry-lab ${config.hostname}`).digest('hex')}\n`,
  };
}

const rootOf = (disk: string, firmware: VmwareFirmware, image: VmwareGuestImage) =>
  `${disk}?offset=${image.manifest.variants[firmware].root.offsetBytes}`;

/** Writes (or replaces) the VM's settings on a copy of the image's flat extent (or a raw copy). */
export async function writeVmwareGuestConfig(
  disk: string,
  firmware: VmwareFirmware,
  config: VmwareGuestConfig,
  image: VmwareGuestImage = vmwareGuestImage(),
): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ferry-vmware-guest-'));
  try {
    const commands: string[] = [];
    for (const [name, text] of Object.entries(files(config, image))) {
      const local = path.join(dir, name.replace('/', '-'));
      writeFileSync(local, text);
      const [folder, file] = name.includes('/') ? [`/etc/${path.dirname(name)}`, path.basename(name)] : ['/etc', name];
      commands.push(`cd ${folder}`, `rm ${file}`, `write ${local} ${file}`, `sif ${file} mode 0100644`);
    }
    writeFileSync(path.join(dir, 'commands'), `${commands.join('\n')}\n`);
    await run('debugfs', ['-w', '-f', path.join(dir, 'commands'), rootOf(disk, firmware, image)]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The guest's /etc/network/interfaces as it is on a disk (undefined when it cannot be read). */
export async function readVmwareGuestInterfaces(
  disk: string,
  firmware: VmwareFirmware,
  image: VmwareGuestImage = vmwareGuestImage(),
): Promise<string | undefined> {
  try {
    const { stdout } = await run('debugfs', ['-R', 'cat /etc/network/interfaces', rootOf(disk, firmware, image)]);
    return stdout;
  } catch {
    return undefined;
  }
}
