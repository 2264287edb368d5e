import { readFileSync } from 'node:fs';

/**
 * A process's environment as it started (`/proc/<pid>/environ`, `NAME=value` entries): a marker set
 * there follows every process started from it, even one reparented or in a session of its own. Undefined
 * when the process is gone or not ours to read.
 */
export function environmentOf(pid: number | string): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0');
  } catch {
    return undefined;
  }
}
