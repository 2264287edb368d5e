import { ProxmoxInputError } from './errors';

/** PVE disk sizes: `32G`, `512M`, `528K`, plain bytes. */
const UNIT: Record<string, number> = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };

export function parseDiskSize(text: string): number {
  const m = /^(\d+(?:\.\d+)?)([KMGT]?)$/.exec(text);
  if (!m) throw new ProxmoxInputError(`not a disk size: "${text}"`);
  return Math.round(Number(m[1]) * UNIT[m[2]!]!);
}

/** As PVE writes `size=` in a config: the largest unit that divides the size. */
export function formatDiskSize(bytes: number): string {
  for (const unit of ['T', 'G', 'M', 'K'] as const) {
    if (bytes >= UNIT[unit]! && bytes % UNIT[unit]! === 0) return `${bytes / UNIT[unit]!}${unit}`;
  }
  return String(bytes);
}
