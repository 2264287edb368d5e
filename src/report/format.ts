import { formatBinaryBytes } from '../domain/binary-bytes';
/** Text formats the renderers share. Times are shown in UTC so a report reads the same everywhere. */

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/** `1.2 s`, `4 min 05 s`, `2 h 03 min`. */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/** Binary units, as disks are sized: `20.0 GiB`. */
export const formatBytes = (bytes: number): string => formatBinaryBytes(bytes);

/** What a VM's (or a wave's) disks carried, and how: `70 GiB imported`, `12 GiB moved live after the boot`, `–`. */
export function formatCopied(importedBytes: number, movedLiveBytes: number): string {
  const parts = [
    ...(importedBytes ? [`${formatBytes(importedBytes)} imported`] : []),
    ...(movedLiveBytes ? [`${formatBytes(movedLiveBytes)} moved live after the boot`] : []),
  ];
  return parts.join(', ') || '–';
}

/** `2026-11-30 02:47:53 UTC`. */
export function formatTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** `02:47:53`: a time of day in UTC, for axes. */
export function formatClock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

/** Offsets from a start, for a timeline's axis: `+0 s`, `+30 s`, `+2 min`, `+1 h 30`. */
export function formatOffset(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `+${s} s`;
  if (s < 3600) return s % 60 ? `+${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}` : `+${s / 60} min`;
  const m = Math.round(s / 60);
  return m % 60 ? `+${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')}` : `+${m / 60} h`;
}

const TICK_STEPS_MS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400].map(
  (s) => s * 1000,
);

/** A round step for axis ticks: at most `maxTicks` across `spanMs`. */
export function tickStep(spanMs: number, maxTicks = 10): number {
  return (
    TICK_STEPS_MS.find((step) => spanMs / step <= maxTicks) ?? Math.ceil(spanMs / maxTicks / 86_400_000) * 86_400_000
  );
}
