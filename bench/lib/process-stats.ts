import { readFileSync } from 'node:fs';

/** CPU (user+system) and memory of another process, read from /proc (Linux), so it is measured alone. */
export interface ProcessStats {
  cpuMs: number;
  rssBytes: number;
  /** Peak resident set size since the process started (VmHWM). */
  peakRssBytes: number;
  /** Resident anonymous memory (heaps, malloc arenas, stacks) and file-backed (code, mapped files). */
  rssAnonBytes: number;
  rssFileBytes: number;
  threads: number;
}

// USER_HZ is 100 on every Linux Node supports (sysconf(_SC_CLK_TCK)); /proc/<pid>/stat counts in it.
const CLOCK_TICKS_PER_SECOND = 100;

export function processStats(pid: number): ProcessStats {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  // Fields after the parenthesised command name (which may contain spaces): utime is field 14, stime 15.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return {
    cpuMs: (ticks * 1000) / CLOCK_TICKS_PER_SECOND,
    rssBytes: kib('VmRSS'),
    peakRssBytes: kib('VmHWM'),
    rssAnonBytes: kib('RssAnon'),
    rssFileBytes: kib('RssFile'),
    threads: Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? NaN),
  };
}

export const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
