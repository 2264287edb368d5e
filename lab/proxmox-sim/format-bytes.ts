const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** PVE's render_bytes: the largest binary unit, two decimals (`1.50 GiB`). */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(2)} ${UNITS[unit]}`;
}
