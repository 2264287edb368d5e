import { DISK_OPTION_KEYS } from '../provisioning/disk-option-keys';

/**
 * The disk options ferry manages (provisioning's DISK_OPTION_KEYS) compared as qemu-server means them:
 * a boolean in any of its spellings, and a value equal to qemu-server's default the same as none.
 */

export const MANAGED_DISK_OPTIONS: readonly string[] = DISK_OPTION_KEYS;

/** Boolean drive options (PVE/QemuServer/Drive.pm) and their defaults. */
const BOOLEAN_DEFAULTS: Record<string, string> = { iothread: '0', ssd: '0', backup: '1', replicate: '1' };
/** Other options whose default ferry knows: `discard` is `ignore` unless set. */
const VALUE_DEFAULTS: Record<string, string> = { discard: 'ignore' };

/** A value as ferry writes it: booleans as 1/0, numbers as text. */
export function normaliseOptionValue(value: string | number | boolean): string {
  if (typeof value === 'boolean') return value ? '1' : '0';
  return String(value);
}

/** An option's value for comparing, or undefined when it is qemu-server's default (or not set). */
export function canonicalDiskOption(key: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let v = value;
  if (key in BOOLEAN_DEFAULTS)
    v = /^(1|on|yes|true)$/i.test(value) ? '1' : /^(0|off|no|false)$/i.test(value) ? '0' : value;
  const byDefault = BOOLEAN_DEFAULTS[key] ?? VALUE_DEFAULTS[key];
  return v === byDefault ? undefined : v;
}

/**
 * Options a running VM takes only at its next start: vmconfig_update_disk (PVE/QemuServer.pm) dies
 * "skip" when any of these differs, leaving the drive pending. The others ferry manages (`backup`,
 * `replicate`) are written to the running VM's config at once (the same sub returns 1).
 */
export const DISK_OPTIONS_AT_RESTART: ReadonlySet<string> = new Set([
  'aio',
  'discard',
  'iothread',
  'queues',
  'product',
  'cache',
  'ssd',
  'vendor',
  'ro',
]);
