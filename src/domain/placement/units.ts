/**
 * Bytes as a person reads them in a refusal. A need is rounded up and a room rounded down, so
 * `needs 181 GiB, 180 GiB free` never understates the need nor overstates the room, and a need that
 * does not fit never prints as equal to the room.
 */
export const GIB = 1024 ** 3;
export const MIB = 1024 ** 2;

export type Rounding = 'up' | 'down';

/** Whole GiB from 10 GiB, one decimal below, MiB below 1 GiB, `0 GiB` for nothing. */
export function formatBytes(bytes: number, rounding: Rounding): string {
  const round = rounding === 'up' ? Math.ceil : Math.floor;
  const value = Math.max(0, bytes);
  if (value === 0) return '0 GiB';
  if (value < GIB) return `${round(value / MIB)} MiB`;
  const gib = value / GIB;
  if (gib >= 10) return `${round(gib)} GiB`;
  const tenths = round(gib * 10);
  return tenths % 10 === 0 ? `${tenths / 10} GiB` : `${(tenths / 10).toFixed(1)} GiB`;
}

/** `needs 412 GiB, 180 GiB free`: the numbers every capacity refusal carries. */
export function needsAndFree(need: number, room: number): string {
  return `needs ${formatBytes(need, 'up')}, ${formatBytes(room, 'down')} free`;
}

/** A commitment ratio as written in the config: `1.0`, `1.5`. */
export function formatRatio(ratio: number): string {
  return Number.isInteger(ratio) ? ratio.toFixed(1) : String(ratio);
}
