import { statfsSync } from 'node:fs';

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
