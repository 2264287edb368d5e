/**
 * pve-common's PVE::Format, as task logs print sizes and durations: render_bytes (the largest binary
 * unit from `int(log(v) / log(1024))` once the value exceeds 1023, `precision` decimals, 2 by default)
 * and render_duration (`1w 2d 3h 4m 5s`, zero parts left out, `0s` for nothing). Numbers are rounded
 * as C's printf does (`%.Nf`: a tie goes to the even digit), not as JavaScript's toFixed (ties up).
 */
const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/** sprintf("%.Nf", value). */
export function printfFixed(value: number, decimals: number): string {
  const scaled = value * 10 ** decimals;
  const floor = Math.floor(scaled);
  if (scaled - floor === 0.5 && floor % 2 === 0) return (floor / 10 ** decimals).toFixed(decimals);
  return value.toFixed(decimals);
}

export function renderBytes(value: number, precision = 2): string {
  let unit = 0;
  let v = value;
  if (v > 1023) {
    unit = Math.min(UNITS.length - 1, Math.trunc(Math.log(v) / Math.log(1024)));
    v /= 1024 ** unit;
  }
  return `${printfFixed(v, precision || 2)} ${UNITS[unit]}`;
}

export function renderDuration(seconds: number): string {
  let rest = Math.round(seconds);
  if (!rest) return '0s';
  const parts: string[] = [];
  for (const [unit, length] of [
    ['w', 7 * 86400],
    ['d', 86400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    const v = Math.trunc(rest / length);
    if (v > 0) {
      parts.push(`${v}${unit}`);
      rest -= v * length;
    }
  }
  return parts.join(' ');
}
