/**
 * Proxmox property strings (`virtio=BC:24:11:00:00:01,bridge=vmbr0,tag=10`): comma-separated `key=value`
 * pairs, where one key per format may appear without `key=` (its default key). Values may be double-quoted
 * to hold commas. Pure functions shared by the domain rules, the client and the simulator.
 */
export type PropertyPart = { key?: string; value: string };

export function splitPropertyString(text: string): PropertyPart[] {
  const parts: PropertyPart[] = [];
  let i = 0;
  while (i < text.length) {
    let raw = '';
    let quoted = false;
    for (; i < text.length; i++) {
      const c = text[i]!;
      if (c === '"') quoted = !quoted;
      else if (c === ',' && !quoted) break;
      raw += c;
    }
    i++; // skip the comma
    if (raw === '') continue;
    const eq = raw.indexOf('=');
    const unquote = (v: string) => (v.length >= 2 && v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1) : v);
    if (eq === -1) parts.push({ value: unquote(raw) });
    else parts.push({ key: raw.slice(0, eq), value: unquote(raw.slice(eq + 1)) });
  }
  return parts;
}

/**
 * Parses into an ordered map. A part without a key is stored under `defaultKey`; without a default key
 * it is an error that names the part.
 */
export function parsePropertyString(text: string, defaultKey?: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of splitPropertyString(text)) {
    const key = part.key ?? defaultKey;
    if (key === undefined) throw new Error(`property string "${text}": value "${part.value}" has no key`);
    if (key in out) throw new Error(`property string "${text}": key "${key}" appears twice`);
    out[key] = part.value;
  }
  return out;
}

/** Writes a map back, the default key (if given and present) first and without `key=`. */
export function formatPropertyString(map: Record<string, string | number | undefined>, defaultKey?: string): string {
  const quote = (v: string) => (v.includes(',') ? `"${v}"` : v);
  const parts: string[] = [];
  if (defaultKey !== undefined && map[defaultKey] !== undefined) parts.push(quote(String(map[defaultKey])));
  for (const [key, value] of Object.entries(map)) {
    if (key === defaultKey || value === undefined) continue;
    parts.push(`${key}=${quote(String(value))}`);
  }
  return parts.join(',');
}
