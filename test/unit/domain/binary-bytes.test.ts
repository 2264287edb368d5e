import { formatBinaryBytes } from '../../../src/domain/binary-bytes';

describe('formatBinaryBytes', () => {
  it.each([
    [0, undefined, undefined, '0 B'],
    [512, undefined, undefined, '512 B'],
    [1023, undefined, undefined, '1023 B'],
    [1024, undefined, undefined, '1.0 KiB'],
    [1536 * 1024 ** 2, undefined, undefined, '1.5 GiB'],
    [20 * 1024 ** 3, undefined, undefined, '20.0 GiB'],
    [3 * 1024 ** 4, undefined, undefined, '3.0 TiB'],
    [2 * 1024 ** 5, undefined, undefined, '2.0 PiB'],
    [5 * 1024 ** 6, undefined, undefined, '5120.0 PiB'],
    // PVE's render_bytes: two decimals, bytes too.
    [512, 2, 2, '512.00 B'],
    [1.5 * 1024 ** 3, 2, 2, '1.50 GiB'],
  ])('%d bytes (decimals %s/%s) → %s', (bytes, decimals, byteDecimals, text) => {
    expect(formatBinaryBytes(bytes, decimals, byteDecimals)).toBe(text);
  });
});
