/**
 * Bytes copied by a PVE task, from its log. qemu-server logs a disk import's qemu-img progress as
 * `transferred 1.00 GiB of 10.00 GiB (10.00%)` and a live import's block jobs as
 * `restore-drive-scsi0: transferred … of … (…%) in 5s` (a live disk move: `drive-scsi0: …`); the percentage is exact, the sizes are rounded.
 */
const LINE =
  /^(?:(\S+): )?transferred (\d+(?:\.\d+)?) ?(B|KiB|MiB|GiB|TiB) of (\d+(?:\.\d+)?) ?(B|KiB|MiB|GiB|TiB) \((\d+(?:\.\d+)?)%\)/;
const UNIT: Record<string, number> = { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, TiB: 1024 ** 4 };

export interface CopiedBytes {
  done: number;
  total: number;
}

/** Tracks the latest progress line per drive across log reads; the sum over drives is the task's progress. */
export class CopyProgress {
  private readonly drives = new Map<string, CopiedBytes>();

  /** Takes new log lines; returns the progress so far, or undefined while no line said any. */
  read(lines: readonly string[]): CopiedBytes | undefined {
    for (const line of lines) {
      const m = LINE.exec(line);
      if (!m) continue;
      const total = Number(m[4]) * UNIT[m[5]!]!;
      this.drives.set(m[1] ?? '', { done: Math.round((total * Number(m[6])) / 100), total: Math.round(total) });
    }
    if (this.drives.size === 0) return undefined;
    let done = 0;
    let total = 0;
    for (const d of this.drives.values()) {
      done += d.done;
      total += d.total;
    }
    return { done, total };
  }
}
