import { etaWithCopies, meanRate, waveEta, type EtaVm } from '../../../../src/domain/status';

const GiB = 1024 ** 3;
const limits = { vmotion: 2, importPerStorage: 2 };

describe('waveEta', () => {
  it('the slower of vMotion and import, each at its limit', () => {
    const vms: EtaVm[] = Array.from({ length: 4 }, () => ({ state: 'pending', bytes: 10 * GiB }));
    const eta = waveEta({
      vms,
      importBytesPerSecond: 100 * 1024 ** 2,
      relocateBytesPerSecond: 200 * 1024 ** 2,
      limits,
    });
    expect(eta.import).toEqual({ bytesLeft: 40 * GiB, vmsLeft: 4, parallel: 2, seconds: (40 * 1024) / 200 });
    expect(eta.relocate.seconds).toBeCloseTo((40 * 1024) / 400);
    expect(eta.seconds).toBe(eta.import.seconds);
  });

  it('counts a running copy by what is left of it, and VMs past a phase not at all', () => {
    const vms: EtaVm[] = [
      { state: 'running', stage: 'import', bytes: 10 * GiB, copiedBytes: 4 * GiB },
      { state: 'running', stage: 'verify', bytes: 10 * GiB },
      { state: 'finished', stage: 'done', bytes: 10 * GiB },
    ];
    const eta = waveEta({ vms, importBytesPerSecond: GiB, relocateBytesPerSecond: GiB, limits });
    expect(eta.import).toMatchObject({ bytesLeft: 6 * GiB, vmsLeft: 1, parallel: 1, seconds: 6 });
    expect(eta.relocate).toMatchObject({ vmsLeft: 0, seconds: 0 });
    expect(eta.seconds).toBe(6);
  });

  it('has no figure while a phase with work left has no measured rate, and counts waits for people apart', () => {
    const vms: EtaVm[] = [
      { state: 'running', stage: 'awaiting-approval', bytes: GiB },
      { state: 'running', stage: 'awaiting-decision', bytes: GiB },
    ];
    const eta = waveEta({ vms, limits });
    expect(eta.seconds).toBeUndefined();
    expect(eta.import.seconds).toBeUndefined();
    expect(eta.import.vmsLeft).toBe(1);
    expect(eta.waitingForPeople).toBe(2);
  });

  it('a wave with nothing left is done now', () => {
    expect(waveEta({ vms: [{ state: 'finished', stage: 'done', bytes: GiB }], limits }).seconds).toBe(0);
  });
});

describe('meanRate', () => {
  it('total bytes over total seconds of copies that took time', () => {
    expect(
      meanRate([
        { bytes: 100, seconds: 1 },
        { bytes: 300, seconds: 3 },
        { bytes: 999, seconds: 0 },
      ]),
    ).toBe(100);
    expect(meanRate([{ bytes: 5, seconds: 0 }])).toBeUndefined();
  });
});

describe('etaWithCopies', () => {
  it('takes the running copies’ rate before any copy finished, and their bytes off what is left', () => {
    const eta = waveEta({
      vms: [
        { state: 'running', stage: 'import', bytes: 10 * GiB },
        { state: 'pending', bytes: 10 * GiB },
      ],
      relocateBytesPerSecond: GiB,
      limits,
    });
    expect(eta.seconds).toBeUndefined();
    const sharper = etaWithCopies(eta, [{ phase: 'import', bytesDone: 4 * GiB, bytesPerSecond: GiB / 2 }]);
    expect(sharper.import).toMatchObject({ bytesLeft: 16 * GiB, parallel: 2, seconds: 16 });
    expect(sharper.seconds).toBe(16);
  });

  it('keeps the measured rate when there is one, and ignores copies of a phase with nothing left', () => {
    const eta = waveEta({
      vms: [{ state: 'running', stage: 'import', bytes: 10 * GiB }],
      importBytesPerSecond: GiB,
      relocateBytesPerSecond: GiB,
      limits,
    });
    const sharper = etaWithCopies(eta, [
      { phase: 'import', bytesDone: 5 * GiB, bytesPerSecond: 1 },
      { phase: 'relocate', bytesDone: GiB },
    ]);
    expect(sharper.import.seconds).toBe(5);
    expect(sharper.relocate).toEqual(eta.relocate);
  });
});
