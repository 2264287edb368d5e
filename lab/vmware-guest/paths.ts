import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../src/paths';

/**
 * The lab's VMware-native guest (Debian 12 installed as on VMware: GRUB, open-vm-tools, ifupdown on
 * ens192, an initramfs of VMware's drivers only), built once by scripts/setup.d/45-conversion.sh and
 * cached by version under $FERRY_CACHE (linked as .tools/vmware-guest). Give each VM a copy (per-vm-config.ts).
 */
export type VmwareFirmware = 'bios' | 'efi';

export interface VmwareGuestManifest {
  key: string;
  debian: string;
  kernel: string;
  packages: Record<string, string>;
  diskBytes: number;
  cmdline: string;
  probe: { port: number; banner: string };
  /** The names VMware's PCI slots give its first NICs, in NIC order. */
  nicNames: string[];
  variants: Record<
    VmwareFirmware,
    { vmdk: string; flat: string; root: { offsetBytes: number; uuid: string }; esp?: { fsid: string } }
  >;
  buildSeconds: number;
}

export interface VmwareGuestImage {
  dir: string;
  manifest: VmwareGuestManifest;
  /** The VMDK descriptor; its monolithicFlat extent is `flat(firmware)` beside it. */
  vmdk(firmware: VmwareFirmware): string;
  flat(firmware: VmwareFirmware): string;
}

export function vmwareGuestDir(): string {
  return process.env.FERRY_VMWARE_GUEST_DIR ?? path.join(REPO_ROOT, '.tools', 'vmware-guest');
}

/** The built image; an error that says how to build it when it is missing. */
export function vmwareGuestImage(dir = vmwareGuestDir()): VmwareGuestImage {
  if (!existsSync(path.join(dir, '.complete'))) {
    throw new Error(
      `the lab's VMware-native guest is not built at ${dir}; run \`npm run setup\` (scripts/setup.sh) as root first`,
    );
  }
  const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as VmwareGuestManifest;
  return {
    dir,
    manifest,
    vmdk: (firmware) => path.join(dir, manifest.variants[firmware].vmdk),
    flat: (firmware) => path.join(dir, manifest.variants[firmware].flat),
  };
}

/** The packages ferry installs into converted Debian 12 guests without an agent (migration.conversion.agentPackages). */
export function guestAgentPackagesDir(): string {
  return process.env.FERRY_GUEST_AGENT_PACKAGES ?? path.join(REPO_ROOT, '.tools', 'guest-agent-packages');
}
