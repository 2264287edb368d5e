import { copyProgress, progressEtaSeconds, readProgress } from '../../../../src/domain/status';
import { CopyProgress } from '../../../../src/proxmox/copy-progress';

describe('typed progress', () => {
  it('carries bytes, percent and the mean rate of a copy', () => {
    const p = copyProgress('import', 4_000, { done: 400, total: 1000 });
    expect(p).toEqual({
      phase: 'import',
      elapsedMs: 4_000,
      bytesDone: 400,
      bytesTotal: 1000,
      percent: 40,
      bytesPerSecond: 100,
    });
    expect(progressEtaSeconds(p)).toBe(6);
  });

  it('without bytes it is a phase and a time, and has no ETA', () => {
    const p = copyProgress('relocate', 1_000);
    expect(p).toEqual({ phase: 'relocate', elapsedMs: 1_000 });
    expect(progressEtaSeconds(p)).toBeUndefined();
  });

  it('reads typed heartbeats and refuses other shapes', () => {
    expect(readProgress({ phase: 'import', elapsedMs: 5, upid: 'UPID:x' })).toEqual({
      phase: 'import',
      elapsedMs: 5,
      upid: 'UPID:x',
    });
    expect(readProgress({ running: 'discovery', forMs: 5 })).toBeUndefined();
    expect(readProgress(undefined)).toBeUndefined();
  });
});

describe('CopyProgress (PVE task log lines)', () => {
  it('a disk import: the latest line, bytes from the exact percentage', () => {
    const copy = new CopyProgress();
    expect(copy.read(['importing disk ...'])).toBeUndefined();
    expect(
      copy.read(['transferred 1.00 GiB of 10.00 GiB (10.00%)', 'transferred 2.50 GiB of 10.00 GiB (25.00%)']),
    ).toEqual({
      done: 2.5 * 1024 ** 3,
      total: 10 * 1024 ** 3,
    });
    // Later reads without a progress line keep the last figure.
    expect(copy.read(['Successfully imported disk'])?.done).toBe(2.5 * 1024 ** 3);
  });

  it('a live import: one block job per drive, summed', () => {
    const copy = new CopyProgress();
    const got = copy.read([
      'drive-scsi0: transferred 512.00 MiB of 1.00 GiB (50.00%) in 3s',
      'drive-scsi1: transferred 0.00 B of 1.00 GiB (0.00%) in 3s',
    ]);
    expect(got).toEqual({ done: 512 * 1024 ** 2, total: 2 * 1024 ** 3 });
  });
});
