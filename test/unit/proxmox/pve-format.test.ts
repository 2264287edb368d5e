import { printfFixed, renderBytes, renderDuration } from '../../../lab/proxmox-sim/pve-format';

/** pve-common's render_bytes and render_duration, as the simulator's task logs print them. */
describe('PVE::Format in the simulator', () => {
  it('render_bytes: the unit from log(v)/log(1024) above 1023 bytes, `precision` decimals (2 by default)', () => {
    expect([renderBytes(0, 1), renderBytes(1023, 1), renderBytes(1024, 1), renderBytes(1536)]).toEqual([
      '0.0 B',
      '1023.0 B',
      '1.0 KiB',
      '1.50 KiB',
    ]);
    expect([renderBytes(384 * 1024 ** 2, 1), renderBytes(1.1 * 1024 ** 3, 1), renderBytes(32 * 1024 ** 3, 1)]).toEqual([
      '384.0 MiB',
      '1.1 GiB',
      '32.0 GiB',
    ]);
  });

  it("sprintf's rounding: an exact tie goes to the even digit", () => {
    expect([
      printfFixed(0.25, 1),
      printfFixed(0.75, 1),
      printfFixed(2.5, 0),
      printfFixed(3.44, 2),
      printfFixed(100, 2),
    ]).toEqual(['0.2', '0.8', '2', '3.44', '100.00']);
  });

  it('render_duration: w, d, h, m, s, the zero parts left out', () => {
    expect([0, 1, 65, 3600, 90061, 8 * 86400].map(renderDuration)).toEqual([
      '0s',
      '1s',
      '1m 5s',
      '1h',
      '1d 1h 1m 1s',
      '1w 1d',
    ]);
  });
});
