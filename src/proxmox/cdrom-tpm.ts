import type { CdromDriveSpec, TpmStateSpec } from '../domain/pve-vm-spec';
import { formatPropertyString, parsePropertyString } from './property-string';

/** CD drives as creation parameters: `ide2: none,media=cdrom` (empty) or `ide2: local:iso/x.iso,media=cdrom`. */
export function cdromParams(cdroms: readonly CdromDriveSpec[] = []): Record<string, string> {
  // PVE requires media=cdrom for an ISO volume ("explicit 'media=cdrom' is required for iso images").
  return Object.fromEntries(
    cdroms.map((c) => [c.slot, formatPropertyString({ file: c.iso ?? 'none', media: 'cdrom' }, 'file')]),
  );
}

/** A new TPM state volume: `STORAGE:1,version=v2.0` (PVE allocates its fixed 4 MiB; the size given is ignored). */
export function tpmstateValue(tpm: TpmStateSpec): string {
  // qemu-server's default version is v1.2, and it cannot be changed later: always say which.
  return formatPropertyString({ file: `${tpm.storage}:1`, version: tpm.version }, 'file');
}

/** A drive value that is a CD drive (`media=cdrom`), not a disk. */
export function isCdromValue(value: string): boolean {
  try {
    return parsePropertyString(value, 'file').media === 'cdrom';
  } catch {
    return false;
  }
}
