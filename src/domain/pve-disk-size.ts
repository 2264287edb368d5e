/** PVE disk sizes as configs write them (`size=32G`, `512M`, `528K`, plain bytes) and `resize` takes them. */
const UNIT: Record<string, number> = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };

/** Bytes, or undefined for text that is no size. */
export function diskSizeBytes(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)([KMGT]?)$/.exec(text);
  return m ? Math.round(Number(m[1]) * UNIT[m[2]!]!) : undefined;
}

/** As PVE writes `size=` in a config: the largest unit that divides the size. */
export function formatDiskSize(bytes: number): string {
  for (const unit of ['T', 'G', 'M', 'K'] as const) {
    if (bytes >= UNIT[unit]! && bytes % UNIT[unit]! === 0) return `${bytes / UNIT[unit]!}${unit}`;
  }
  return String(bytes);
}
