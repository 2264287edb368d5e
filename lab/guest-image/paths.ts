import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../src/paths';

/**
 * The lab's real guest disks, built once by scripts/setup.d/40-guest-image.sh and cached by version
 * under $FERRY_CACHE (linked as .tools/guest-image). Treat them as read-only: give each VM a copy
 * (per-vm-config.ts).
 */

/** `mac`: the address goes on the NIC with the VM's MAC. `ens192`: on the NIC named ens192 (VMware's). */
export type GuestVariant = 'mac' | 'ens192';
export const GUEST_VARIANTS: readonly GuestVariant[] = ['mac', 'ens192'];

/** What setup wrote to manifest.json. */
export interface GuestImageManifest {
  key: string;
  debian: string;
  kernel: string;
  packages: Record<string, string>;
  diskBytes: number;
  esp: { offsetBytes: number; sizeBytes: number; fsid: string; vmConfPath: string };
  root: { offsetBytes: number; sizeBytes: number; uuid: string };
  cmdline: string;
  /** The application probe: TCP `port` answers one line starting with `banner`, then the host name. */
  probe: { port: number; banner: string };
  variants: Record<GuestVariant, { nicMatch: string; raw: string; vmdk: string; flat: string }>;
  buildSeconds: number;
}

export interface GuestImage {
  dir: string;
  manifest: GuestImageManifest;
  /** The raw disk (GPT; boots on SeaBIOS and OVMF). */
  raw(variant: GuestVariant): string;
  /** The VMDK descriptor vSphere reads; its extent is `flat(variant)` in the same folder. */
  vmdk(variant: GuestVariant): string;
  /** The monolithicFlat extent: the same bytes as the raw disk. */
  flat(variant: GuestVariant): string;
  /** The guest's kernel (also on the ESP), for a quick probe boot. */
  vmlinuz: string;
}

/** Where the cached image is: `FERRY_GUEST_IMAGE_DIR`, else .tools/guest-image in the clone. */
export function guestImageDir(): string {
  return process.env.FERRY_GUEST_IMAGE_DIR ?? path.join(REPO_ROOT, '.tools', 'guest-image');
}

/** The built guest image; an error that says how to build it when it is missing. */
export function guestImage(dir = guestImageDir()): GuestImage {
  if (!existsSync(path.join(dir, '.complete'))) {
    throw new Error(
      `the lab's guest image is not built at ${dir}; run \`npm run setup\` (scripts/setup.sh) as root first`,
    );
  }
  const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as GuestImageManifest;
  const file = (name: string) => path.join(dir, name);
  return {
    dir,
    manifest,
    raw: (variant) => file(manifest.variants[variant].raw),
    vmdk: (variant) => file(manifest.variants[variant].vmdk),
    flat: (variant) => file(manifest.variants[variant].flat),
    vmlinuz: file('vmlinuz'),
  };
}

/** Debian's OVMF (package `ovmf`): the code is shared read-only, each VM gets its own copy of the vars. */
export const OVMF_CODE = '/usr/share/OVMF/OVMF_CODE_4M.fd';
export const OVMF_VARS_TEMPLATE = '/usr/share/OVMF/OVMF_VARS_4M.fd';
/** The small pair (2 MiB code, 128 KiB vars; PVE's `efitype=2m`, its old default). */
export const OVMF_CODE_2M = '/usr/share/OVMF/OVMF_CODE.fd';
export const OVMF_VARS_2M_TEMPLATE = '/usr/share/OVMF/OVMF_VARS.fd';
