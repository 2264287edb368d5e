import {
  BOOTLOADER_CONFIG_GLOBS,
  grubKernelCmdline,
  NETWORK_CONFIG_GLOBS,
  relevantPackages,
  type GuestInspection,
  type InspectedOs,
} from '../domain/conversion';
import type { GuestfishSession } from './guestfish';

/** The disks of one guest as libguestfs opens them. */
export interface GuestDisk {
  path: string;
  format: 'vmdk' | 'qcow2' | 'raw';
}

/** Adds the disks (read-only: libguestfs writes to a throw-away overlay of its own) and starts the appliance. */
export async function openDisks(g: GuestfishSession, disks: readonly GuestDisk[], readonly: boolean): Promise<void> {
  for (const d of disks) await g.call('add-drive-opts', d.path, `format:${d.format}`, `readonly:${readonly}`);
  await g.call('run');
}

/**
 * Reads what conversion decisions need from an open guest, and leaves its file systems mounted (read-only
 * when `readonly`) for the edits that follow: libguestfs's inspection of the OS, the packages that
 * matter, the boot loader files where virt-v2v looks, the ESP, the network configuration.
 */
export async function inspectOpenGuest(
  g: GuestfishSession,
  firmware: 'bios' | 'efi',
  readonly: boolean,
): Promise<GuestInspection> {
  const roots = await g.lines('inspect-os');
  const empty: GuestInspection = {
    packages: [],
    bootloaderConfigs: [],
    efiFiles: [],
    networkFiles: [],
    kernelCmdline: '',
  };
  const root = roots[0];
  if (!root) return empty;
  const get = async (what: string) => (await g.call(`inspect-get-${what}`, root)).trim();
  const os: InspectedOs = {
    type: await get('type'),
    distro: await get('distro'),
    major: Number(await get('major-version')),
    minor: Number(await get('minor-version')),
    product: await get('product-name'),
    arch: await get('arch'),
    packageFormat: await get('package-format'),
  };
  // Mount points shortest first, so that /boot/efi lands inside /.
  const mounts = (await g.lines('inspect-get-mountpoints', root))
    .map((l) => /^(\S+): (\S+)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .sort((a, b) => a[1]!.length - b[1]!.length);
  for (const m of mounts) await g.try(readonly ? 'mount-ro' : 'mount', m[2]!, m[1]!);
  const inspection: GuestInspection = {
    ...empty,
    os,
    packages: relevantPackages(await g.call('inspect-list-applications2', root)),
  };
  if (os.type !== 'linux') return inspection;
  inspection.bootloaderConfigs = await globAll(g, BOOTLOADER_CONFIG_GLOBS[firmware]);
  if (firmware === 'efi' && (await g.try('is-dir', '/boot/efi/EFI'))?.trim() === 'true') {
    // `find` answers paths below the folder with a leading slash: /debian/shimx64.efi.
    inspection.efiFiles = (await g.lines('find', '/boot/efi/EFI')).map((f) => `EFI/${f.replace(/^\/+/, '')}`);
  }
  for (const file of await globAll(g, NETWORK_CONFIG_GLOBS)) {
    if ((await g.try('is-file', file))?.trim() !== 'true') continue;
    const text = await g.try('cat', file);
    if (text !== undefined) inspection.networkFiles.push({ path: file, text });
  }
  inspection.kernelCmdline = grubKernelCmdline((await g.try('cat', '/etc/default/grub')) ?? '');
  return inspection;
}

async function globAll(g: GuestfishSession, patterns: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const p of patterns) found.push(...(await g.lines('glob-expand', p)));
  return [...new Set(found)];
}
