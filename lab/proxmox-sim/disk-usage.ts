import { readdirSync, statfsSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Space of the file system a folder lives on, in bytes, as PVE reads it (pve-common's `df`, i.e.
 * Filesys::Df): `total` = blocks, `avail` = blocks available to unprivileged users, `used` = blocks
 * minus free blocks, `free` = free blocks (root's reserve included).
 */
export interface DiskUsage {
  total: number;
  used: number;
  avail: number;
  free: number;
}

export function diskUsage(folder: string): DiskUsage {
  const st = statfsSync(folder);
  const total = st.blocks * st.bsize;
  const free = st.bfree * st.bsize;
  return { total, used: total - free, avail: st.bavail * st.bsize, free };
}

/**
 * A storage with a size of its own (a thin pool, a quota): used is what its files take on disk (like
 * a thin pool's allocated data), capped at the size, so a test fills it by writing into its folder.
 */
export function quotaUsage(folder: string, quotaBytes: number): DiskUsage {
  const used = Math.min(quotaBytes, allocatedBytes(folder));
  return { total: quotaBytes, used, avail: quotaBytes - used, free: quotaBytes - used };
}

/** Bytes the files under a folder take on disk (allocated blocks, as `du`). */
export function allocatedBytes(folder: string): number {
  let sum = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    sum += statBlocks(path.join(entry.parentPath, entry.name));
  }
  return sum;
}

function statBlocks(file: string): number {
  try {
    return statSync(file).blocks * 512;
  } catch {
    return 0; // removed while we counted
  }
}
