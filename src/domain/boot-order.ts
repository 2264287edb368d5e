import { parsePropertyString } from './pve-property-string';

/** The devices of a `boot` value (`order=scsi0;ide2;net0`); none for the legacy form or no value. */
export function bootOrderOf(value: string | undefined): string[] {
  if (!value) return [];
  const order = parsePropertyString(value, 'legacy').order;
  return order ? order.split(/[;,]/).filter(Boolean) : [];
}

/** A drive value that is a CD drive: `media=cdrom`, an empty drive, or the cloud-init drive. */
export function isCdromDrive(value: string): boolean {
  const { file = '', media } = parsePropertyString(value, 'file');
  return media === 'cdrom' || file === 'none' || file === 'cdrom' || /(^|[:/])vm-\d+-cloudinit\b/.test(file);
}

/**
 * Whether the VM boots in the order wanted. Proxmox appends a CD drive added later to the order (the
 * cloud-init drive, an ISO: qemu-server's update_vm_api "append new CD drives to bootorder"), so the
 * order wanted followed only by CD drives of the config is the same order; writing it again would drop
 * them, and on a running VM leave a pending change behind.
 */
export function bootOrderHolds(current: string | undefined, wanted: string, config: Readonly<Record<string, string>>) {
  const have = bootOrderOf(current);
  const want = bootOrderOf(wanted);
  if (want.length === 0) return current === wanted;
  if (have.length < want.length || want.some((device, i) => have[i] !== device)) return false;
  return have.slice(want.length).every((device) => config[device] !== undefined && isCdromDrive(config[device]));
}
