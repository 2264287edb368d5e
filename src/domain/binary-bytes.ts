const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/**
 * Bytes in the largest binary unit below the value, as disks are sized: `20.0 GiB`. Plain bytes get
 * `byteDecimals` (PVE's render_bytes prints `512.00 B`; people read `512 B`).
 */
export function formatBinaryBytes(bytes: number, decimals = 1, byteDecimals = 0): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(unit === 0 ? byteDecimals : decimals)} ${UNITS[unit]}`;
}
