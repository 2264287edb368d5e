import { splitPropertyString } from '../../../src/proxmox/property-string';
import type { ParamSchema } from './subset';
import { parseBoolean } from './validate';

/**
 * A property string as PVE writes it back after parsing it (pve-common's parse_property_string then
 * print_property_string; qemu-server does this for every drive and NIC it stores): aliases resolved
 * (`virtio=MAC` is model + macaddr, printed again as `virtio=MAC`), yes/no words of boolean keys stored
 * as 1/0 (`ssd=true` → `ssd=1`), the default key first, then the required keys, then the rest, each
 * group sorted by name. The value must already have passed the validator.
 */
export function normalisePropertyString(format: Record<string, ParamSchema>, text: string): string {
  const defaultKey = Object.entries(format).find(([, s]) => s.default_key)?.[0];
  const parsed: Record<string, string> = {};
  for (const part of splitPropertyString(text)) {
    let key = part.key ?? defaultKey;
    if (key === undefined) return text;
    const entry = format[key];
    if (entry?.alias) {
      if (entry.keyAlias) parsed[entry.keyAlias] = key;
      key = entry.alias;
    }
    parsed[key] = format[key]?.type === 'boolean' ? (parseBoolean(part.value) ?? part.value) : part.value;
  }

  // keyAlias pairs print as one `key=value` item: the default key's value names the alias (`virtio=MAC`).
  const combined: Record<string, string> = {};
  for (const entry of Object.values(format)) if (entry.keyAlias && entry.alias) combined[entry.keyAlias] = entry.alias;
  const done = new Set<string>();
  const items: string[] = [];
  const quote = (v: string) => (v.includes(',') ? `"${v}"` : v);
  const add = (key: string, isDefault: boolean) => {
    if (done.has(key) || parsed[key] === undefined) return;
    done.add(key);
    const partner = combined[key];
    if (partner !== undefined && parsed[partner] !== undefined) {
      items.push(`${parsed[key]}=${quote(parsed[partner])}`);
      done.add(partner);
    } else items.push(isDefault ? quote(parsed[key]) : `${key}=${quote(parsed[key])}`);
  };
  if (defaultKey !== undefined) add(defaultKey, true);
  const keys = Object.keys(parsed).sort();
  const optional = (k: string) => format[k]?.optional === 1 || format[k]?.optional === '1';
  for (const key of keys) if (format[key] && !optional(key)) add(key, false);
  for (const key of keys) add(key, false);
  return items.join(',');
}
