import { readdirSync, readFileSync } from 'node:fs';

// USER_HZ is 100 on every Linux Node supports; /proc/<pid>/stat and /proc/stat count in it.
const TICK_MS = 10;

/** CPU time (ms) of every live process by command name, with some processes named by the caller instead. */
export type CpuByCommand = Map<string, number>;

/**
 * The CPU every live process has used, summed per command name (`/proc/<pid>/stat`): NetBox's gunicorn
 * workers, PostgreSQL's backends, the Temporal server, BIND… `named` maps pids to a label of their
 * own (the worker, the bench). A process that exits between two snapshots loses its share: the lab's
 * servers all live for the whole run.
 */
export function cpuByCommand(named: Record<number, string> = {}): CpuByCommand {
  const out: CpuByCommand = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const label = named[Number(entry)] ?? comm;
    out.set(label, (out.get(label) ?? 0) + (Number(fields[11]) + Number(fields[12])) * TICK_MS);
  }
  return out;
}

/** Busy and stolen CPU time of the whole machine (all cores, ms), from /proc/stat. */
export function machineCpu(): { busyMs: number; stealMs: number; idleMs: number } {
  const [, ...values] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = values.map(Number) as number[];
  return {
    busyMs: (user! + nice! + system! + irq! + softirq!) * TICK_MS,
    stealMs: (steal ?? 0) * TICK_MS,
    idleMs: (idle! + iowait!) * TICK_MS,
  };
}

/** What each command used between two snapshots, largest first, those under `minMs` left out. */
export function cpuSpent(before: CpuByCommand, after: CpuByCommand, minMs = 0): Array<[string, number]> {
  return [...after]
    .map(([label, ms]): [string, number] => [label, ms - (before.get(label) ?? 0)])
    .filter(([, ms]) => ms >= minMs)
    .sort((a, b) => b[1] - a[1]);
}
