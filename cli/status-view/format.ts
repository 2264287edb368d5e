import { formatBinaryBytes } from '../../src/domain/binary-bytes';
/** Figures as the live view prints them. */

export const formatBytes = (bytes: number): string => formatBinaryBytes(bytes);

export function formatRate(bytesPerSecond: number): string {
  return `${(bytesPerSecond / 1024 ** 2).toFixed(1)} MiB/s`;
}

/** `45s`, `3m05s`, `2h04m`. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** A bar of `width` cells for a fraction done (0–1). */
export function bar(fraction: number, width = 20): string {
  const done = Math.round(Math.min(1, Math.max(0, fraction)) * width);
  return `[${'#'.repeat(done)}${'-'.repeat(width - done)}]`;
}

export function fit(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, width - 1)}~` : text.padEnd(width);
}
