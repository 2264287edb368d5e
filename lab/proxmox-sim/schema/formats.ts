import { HA_FORMATS } from '../ha/formats';
import { checkHotplugFeatures } from '../hotplug-features';
import type { ParamSchema } from './subset';

/**
 * Perl-registered formats the schema names by string (`format: "pve-vmid"`) without defining them. Only
 * those the simulated endpoints use for ferry's calls are checked; the messages follow PVE's. A format
 * not listed here is accepted as any string (none of ferry's parameters uses one).
 */
type Check = (value: string) => string | undefined;

const re =
  (pattern: RegExp, message: (v: string) => string): Check =>
  (v) =>
    pattern.test(v) ? undefined : message(v);

const STORAGE_ID = /^[a-z][a-z0-9\-_.]*[a-z0-9]$/i;
const VOLUME_ID = /^([a-z][a-z0-9\-_.]*[a-z0-9]):(.+)$/i;

const sdnId =
  (kind: string): Check =>
  (v) => {
    if (!/^[a-z][a-z0-9]*[a-z0-9]$/i.test(v)) return `${kind} ID '${v}' contains illegal characters`;
    if (v.length > 8) return `${kind} ID '${v}' can't be more length than 8 characters`;
    return undefined;
  };

const volumeId: Check = re(VOLUME_ID, (v) => `unable to parse volume ID '${v}'`);
const absolutePath = (v: string) => v.startsWith('/') && !v.includes('\0');

const NAMED: Record<string, Check> = {
  ...HA_FORMATS,
  'pve-vmid': re(/^\d+$/, () => 'value does not look like a valid VM ID'),
  'pve-node': re(/^[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?$/, () => 'value does not look like a valid node name'),
  'pve-storage-id': re(STORAGE_ID, (v) => `storage ID '${v}' contains illegal characters`),
  'pve-configid': re(/^[a-z][a-z0-9_-]+$/i, (v) => `invalid configuration ID '${v}'`),
  'dns-name': re(
    /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?\.)*[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?$/,
    () => 'value does not look like a valid DNS name',
  ),
  'mac-addr': re(
    /^[a-f0-9][02468ace](?::[a-f0-9]{2}){5}$/i,
    () => 'value does not look like a valid unicast MAC address',
  ),
  'pve-bridge-id': re(/^[-_.\w\d]+$/, () => 'value does not look like a valid bridge name'),
  'pve-sdn-zone-id': sdnId('zone'),
  'pve-sdn-vnet-id': sdnId('vnet'),
  'pve-volume-id': volumeId,
  'pve-volume-id-or-qm-path': (v) => (v === 'none' || v === 'cdrom' || absolutePath(v) ? undefined : volumeId(v)),
  'pve-volume-id-or-absolute-path': (v) => (absolutePath(v) ? undefined : volumeId(v)),
  'disk-size': re(/^\d+(\.\d+)?[KMGT]?$/, () => 'value does not look like a valid disk size'),
  'pve-tag': re(/^[a-z0-9_][a-z0-9_\-+.]*$/i, (v) => `invalid tag '${v}'`),
  'pve-userid': re(/^[^\s:/@!]+@[A-Za-z][A-Za-z0-9.\-_]+$/, (v) => `value '${v}' does not look like a valid user name`),
  'pve-tokenid': re(
    /^[^\s:/@!]+@[A-Za-z][A-Za-z0-9.\-_]+![A-Za-z][A-Za-z0-9.\-_]+$/,
    (v) => `invalid API token ID '${v}'`,
  ),
  'pve-groupid': re(/^[A-Za-z0-9.\-_]+$/, (v) => `invalid format - group ID '${v}' contains illegal characters`),
  'pve-roleid': re(/^[A-Za-z0-9.\-_]+$/, (v) => `role ID '${v}' contains illegal characters`),
  'pve-realm': re(/^[A-Za-z][A-Za-z0-9.\-_]+$/, () => 'value does not look like a valid realm'),
  'pve-storage-content': re(
    /^(images|rootdir|vztmpl|iso|backup|snippets|import)$/,
    (v) => `invalid content type '${v}'`,
  ),
  'pve-hotplug-features': checkHotplugFeatures,
  urlencoded: re(/^[-%a-zA-Z0-9_.!~*'()]*$/, (v) => `'${v}' is not in URL encoded format`),
};

/**
 * Named formats that are really property strings; the schema gives only their `typetext`, so their keys
 * are written out here from it (PVE's qemu-server defines them in Perl).
 */
const DEVICE = /^(ide|sata|scsi|virtio|net|efidisk|tpmstate|hostpci|usb)\d+$/;
export const NAMED_PROPERTY_FORMATS: Record<string, Record<string, ParamSchema>> = {
  'pve-qm-boot': {
    legacy: { type: 'string', optional: 1, default_key: 1, pattern: '[acdn]{1,4}' },
    order: { type: 'string', optional: 1, format: 'pve-qm-bootdev-list' },
  },
  'pve-qm-rng': {
    source: { type: 'string', default_key: 1, enum: ['/dev/urandom', '/dev/random', '/dev/hwrng'] },
    max_bytes: { type: 'integer', optional: 1, minimum: 0 },
    period: { type: 'integer', optional: 1, minimum: 0 },
  },
  'pve-vm-cpu-conf': {
    cputype: { type: 'string', optional: 1, default_key: 1, pattern: '[-+_.a-zA-Z0-9]+' },
    flags: { type: 'string', optional: 1, pattern: '(?:[+-][a-zA-Z0-9\\-_\\.]+;?)*' },
    hidden: { type: 'boolean', optional: 1 },
    'hv-vendor-id': { type: 'string', optional: 1, pattern: '[a-zA-Z0-9]{1,12}' },
    'phys-bits': { type: 'string', optional: 1, pattern: '([89]|[1-5][0-9]|6[0-4]|host)' },
    'guest-phys-bits': { type: 'integer', optional: 1, minimum: 32, maximum: 64 },
    'reported-model': { type: 'string', optional: 1 },
  },
};

const LIST_ITEM: Record<string, Check> = {
  'pve-qm-bootdev': re(DEVICE, (v) => `invalid boot device '${v}'`),
};

/** Checks a value against a named format; `-list` formats check each item (split on `,`, `;` or spaces). */
export function checkNamedFormat(format: string, value: string): string | undefined {
  const direct = NAMED[format];
  if (direct) return direct(value);
  if (format.endsWith('-list')) {
    const item = format.slice(0, -'-list'.length);
    const check = LIST_ITEM[item] ?? NAMED[item];
    if (!check) return undefined;
    for (const part of value.split(/[,;\s]+/).filter(Boolean)) {
      const error = check(part);
      if (error) return error;
    }
  }
  return undefined;
}
