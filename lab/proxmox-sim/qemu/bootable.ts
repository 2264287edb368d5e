import { execFile } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Whether a disk holds something a BIOS or UEFI firmware can boot, which decides if the simulator runs
 * the VM under real QEMU or only simulates its power state.
 *
 * Rule: the first sector ends with the boot signature 0x55 0xAA, and the disk has a partition table:
 * either a GPT header ("EFI PART") in LBA 1, or an MBR whose four partition entries all have a valid
 * status byte (0x00 or 0x80) and at least one of which is used (type ≠ 0). The signature alone is what
 * SeaBIOS checks; the partition table keeps an arbitrary or random test image (the simulator's tests
 * import many) from counting as bootable by chance, and an empty new disk (all zeros) never does.
 *
 * raw volumes are read directly; qcow2 and vmdk through `qemu-img dd` (the guest's view, not the
 * container's bytes).
 */
export function sectorsAreBootable(head: Buffer): boolean {
  if (head.length < 1024 || head[510] !== 0x55 || head[511] !== 0xaa) return false;
  if (head.subarray(512, 520).toString('latin1') === 'EFI PART') return true;
  let used = 0;
  for (let i = 0; i < 4; i++) {
    const entry = 446 + i * 16;
    const status = head[entry]!;
    if (status !== 0x00 && status !== 0x80) return false;
    if (head[entry + 4] !== 0) used++;
  }
  return used > 0;
}

/** The first `bytes` of the guest-visible disk. */
export async function readDiskHead(file: string, format: string, bytes = 1024): Promise<Buffer> {
  if (format === 'raw') {
    const fd = openSync(file, 'r');
    try {
      const buffer = Buffer.alloc(bytes);
      const n = readSync(fd, buffer, 0, bytes, 0);
      return buffer.subarray(0, n);
    } finally {
      closeSync(fd);
    }
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'ferry-head-'));
  try {
    const out = path.join(dir, 'head.raw');
    await run('qemu-img', ['dd', '-f', format, '-O', 'raw', `bs=${bytes}`, 'count=1', `if=${file}`, `of=${out}`]);
    return readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function isBootableDisk(file: string, format: string): Promise<boolean> {
  try {
    return sectorsAreBootable(await readDiskHead(file, format));
  } catch {
    return false;
  }
}
