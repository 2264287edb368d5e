import { CopyProgress } from '../../../src/proxmox/copy-progress';

/**
 * The lines of a move_disk task, as qemu-server prints them (render_bytes with one decimal): a live move's
 * block job (BlockJob.pm monitor: `in <duration>`, `, ready` once the mirror is in sync; job `drive-scsi0`
 * for a drive-mirror, `mirror-scsi0` for PVE 9's blockdev-mirror) and an offline move's qemu-img convert.
 */
describe('CopyProgress reads move_disk task logs', () => {
  const GiB = 1024 ** 3;

  it('a live move: the mirror lines up to ready, the lines around them ignored', () => {
    const copy = new CopyProgress();
    expect(
      copy.read(["allocated target volume 'local-lvm:vm-100-disk-1'", 'drive mirror is starting for drive-scsi0']),
    ).toBeUndefined();
    expect(copy.read(['drive-scsi0: transferred 0.0 B of 32.0 GiB (0.00%) in 0s'])).toEqual({
      done: 0,
      total: 32 * GiB,
    });
    expect(copy.read(['drive-scsi0: transferred 1.1 GiB of 32.0 GiB (3.44%) in 1s'])).toEqual({
      done: Math.round(32 * GiB * 0.0344),
      total: 32 * GiB,
    });
    expect(
      copy.read([
        'drive-scsi0: transferred 32.0 GiB of 32.0 GiB (100.00%) in 1m 5s, ready',
        "all 'mirror' jobs are ready",
        'drive-scsi0: Completing block job...',
      ]),
    ).toEqual({
      done: 32 * GiB,
      total: 32 * GiB,
    });
    expect(copy.read(['drive-scsi0: Completed successfully.', 'drive-scsi0: mirror-job finished'])).toEqual({
      done: 32 * GiB,
      total: 32 * GiB,
    });
  });

  it("PVE 9's blockdev-mirror job names and a cancelled job's lines", () => {
    const copy = new CopyProgress();
    expect(
      copy.read([
        'mirror-scsi0: transferred 512.0 MiB of 2.0 GiB (25.00%) in 2s',
        'mirror-scsi0: Cancelling block job',
        'mirror-scsi0: Done.',
      ]),
    ).toEqual({
      done: 512 * 1024 ** 2,
      total: 2 * GiB,
    });
  });

  it('an offline move: qemu-img convert progress without a job name', () => {
    const copy = new CopyProgress();
    expect(
      copy.read([
        'create full clone of drive scsi0 (nfs-migration:100/vm-100-disk-0.qcow2)',
        'transferred 0.0 B of 384.0 MiB (0.00%)',
        'transferred 192.0 MiB of 384.0 MiB (50.00%)',
      ]),
    ).toEqual({
      done: 192 * 1024 ** 2,
      total: 384 * 1024 ** 2,
    });
  });
});
