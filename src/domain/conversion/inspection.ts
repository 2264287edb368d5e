/**
 * What a converter reads from a guest's disks before it changes anything (libguestfs inspection, read
 * only), and the rules that turn its raw answers into facts. Pure: the client gathers the text.
 */

export interface InspectedOs {
  /** libguestfs `inspect-get-type`: linux, windows, … */
  type: string;
  /** `inspect-get-distro`: debian, ubuntu, rhel, windows, … */
  distro: string;
  major: number;
  minor: number;
  /** `inspect-get-product-name`, e.g. "Debian GNU/Linux 12 (bookworm)" or "12.15". */
  product: string;
  arch: string;
  /** deb, rpm, … (unknown for Windows). */
  packageFormat: string;
}

export interface GuestInspection {
  /** Absent when libguestfs found no operating system on the disks (blank disks, an unknown OS). */
  os?: InspectedOs;
  /** Installed packages that conversion decisions look at (see RELEVANT_PACKAGES). */
  packages: string[];
  /** Boot loader configuration files where virt-v2v 2.2 looks: under /boot (BIOS) or /boot/efi/EFI (UEFI). */
  bootloaderConfigs: string[];
  /** Files on the ESP below EFI/, relative to the ESP (`EFI/debian/shimx64.efi`); empty without one. */
  efiFiles: string[];
  /** The guest's network configuration files, with their text (see NETWORK_CONFIG_GLOBS). */
  networkFiles: Array<{ path: string; text: string }>;
  /** The kernel command line GRUB gives every kernel (GRUB_CMDLINE_LINUX and _DEFAULT in /etc/default/grub). */
  kernelCmdline: string;
  /** The folders under `migration.conversion.agentPackages` on the worker that inspected it (debian-12, …). */
  agentFolders?: string[];
}

/** Where Linux distributions keep NIC names and addresses, and where NIC names are pinned. */
export const NETWORK_CONFIG_GLOBS: readonly string[] = [
  '/etc/network/interfaces',
  '/etc/network/interfaces.d/*',
  '/etc/netplan/*.yaml',
  '/etc/sysconfig/network-scripts/ifcfg-*',
  '/etc/sysconfig/network/ifcfg-*',
  '/etc/NetworkManager/system-connections/*',
  '/etc/systemd/network/*.network',
  '/etc/systemd/network/*.link',
  '/etc/udev/rules.d/*net*.rules',
];

/** Boot loader configurations virt-v2v 2.2 detects (Linux_bootloaders): GRUB 2 grub.cfg, GRUB legacy grub.conf/menu.lst. */
export const BOOTLOADER_CONFIG_GLOBS: Readonly<Record<'bios' | 'efi', readonly string[]>> = {
  bios: ['/boot/grub/grub.cfg', '/boot/grub2/grub.cfg', '/boot/grub/grub.conf', '/boot/grub/menu.lst'],
  efi: ['/boot/efi/EFI/*/grub.cfg', '/boot/efi/EFI/*/grub.conf'],
};

/** Packages whose presence changes what conversion does. */
const RELEVANT_PACKAGES =
  /^(open-vm-tools(-.+)?|vmware-tools-.+|VMwareTools|kmod-vmware-tools.*|qemu-guest-agent|ubuntu-server)$/;

/** The package names in `inspect-list-applications2` output that conversion decisions need. */
export function relevantPackages(applications2Output: string): string[] {
  const names = new Set<string>();
  for (const line of applications2Output.split('\n')) {
    const m = /^ {2}app2_name: (\S+)$/.exec(line);
    if (m && RELEVANT_PACKAGES.test(m[1]!)) names.add(m[1]!);
  }
  return [...names].sort();
}

/**
 * The packages virt-v2v 2.2 uninstalls as VMware Tools (convert_linux.ml, unconfigure_vmware): every
 * vmware-tools-*, VMwareTools, kmod-vmware-tools*, open-vm-tools-*, and open-vm-tools unless
 * ubuntu-server depends on it.
 */
export function vmwareToolsRemoved(packages: readonly string[]): string[] {
  const ubuntuServer = packages.includes('ubuntu-server');
  return packages.filter(
    (p) =>
      p.startsWith('vmware-tools-') ||
      p === 'VMwareTools' ||
      p.startsWith('kmod-vmware-tools') ||
      p.startsWith('open-vm-tools-') ||
      (p === 'open-vm-tools' && !ubuntuServer),
  );
}

/** GRUB's default kernel arguments from /etc/default/grub (both variables, as update-grub joins them). */
export function grubKernelCmdline(defaultGrub: string): string {
  const values: string[] = [];
  for (const line of defaultGrub.split('\n')) {
    const m = /^\s*GRUB_CMDLINE_LINUX(?:_DEFAULT)?=(["']?)(.*)\1\s*$/.exec(line);
    if (m) values.push(m[2]!);
  }
  return values.join(' ').trim();
}

/** The folder of agent packages for a guest: `<distro>-<major>` (debian-12, rhel-9). */
export function agentPackageFolder(os: Pick<InspectedOs, 'distro' | 'major'>): string {
  return `${os.distro}-${os.major}`;
}

/** How the OS reads in a plan: its product name, with the distribution and version when the name lacks them. */
export function describeOs(os: InspectedOs): string {
  const version = `${os.major}${os.minor ? `.${os.minor}` : ''}`;
  const product = os.product.trim();
  if (product.toLowerCase().includes(os.distro.toLowerCase())) return `${product} (${os.arch})`;
  return `${os.distro} ${product || version} (${os.arch})`;
}
