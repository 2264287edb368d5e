import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

// USER_HZ is 100 on every Linux Node supports; /proc/<pid>/stat counts in it.
const TICK_MS = 10;

export interface ProcessEntry {
  ppid: number;
  comm: string;
  /** user + system CPU since it started, ms. */
  cpuMs: number;
  /** Its environment holds the marker: started by a process that had it (whoever its parent is now). */
  marked: boolean;
}

/**
 * Every live process (`/proc/<pid>/stat`): its parent, command name, CPU so far, and whether its
 * environment holds `marker` (`NAME=value`). The marker follows a process tree that a parent's parent
 * path does not: guestfish --listen forks its server and exits, so the server and the libguestfs
 * appliance under it end up reparented, but keep the environment they were started with.
 */
export function readProcesses(marker?: string): Map<number, ProcessEntry> {
  const out = new Map<number, ProcessEntry>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    let environ = '';
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (marker) environ = readFileSync(`/proc/${entry}/environ`, 'latin1');
    } catch {
      continue; // gone meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.set(Number(entry), {
      ppid: Number(fields[1]),
      comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
      cpuMs: (Number(fields[11]) + Number(fields[12])) * TICK_MS,
      marked: marker !== undefined && environ.split('\0').includes(marker),
    });
  }
  return out;
}

/** Whether `pid` is `ancestor` or one of its descendants. */
export function isUnder(pid: number, ancestor: number, processes: ReadonlyMap<number, ProcessEntry>): boolean {
  for (let p: number | undefined = pid, hops = 0; p !== undefined && p > 1 && hops < 64; hops++) {
    if (p === ancestor) return true;
    p = processes.get(p)?.ppid;
  }
  return false;
}

/** A process's scheduler autogroup (`/proc/<pid>/autogroup`: one per session while autogrouping is on). */
function autogroupOf(pid: number): string | undefined {
  try {
    return /^(\S+)/.exec(readFileSync(`/proc/${pid}/autogroup`, 'utf8'))?.[1];
  } catch {
    return undefined; // gone, or a kernel without autogroups
  }
}

/**
 * Lowers the marked processes that `pick` accepts to `nice`: each of their threads (Linux keeps a nice
 * value per thread, and QEMU's vCPU threads exist before a renice of its main thread could reach
 * them) and, where one runs in a session of its own (virt-v2v is started detached, guestfish --listen
 * forks a server), its scheduler autogroup: with autogrouping on, a thread's nice weighs only within its
 * autogroup and each autogroup competes as one. The autogroup of `keep` (the worker's) is never changed.
 * Returns the processes it found, by command name.
 */
export function niceMarked(
  marker: string,
  keep: number,
  pick: (pid: number, p: ProcessEntry) => boolean,
  nice: number,
): string[] {
  const found: string[] = [];
  const kept = autogroupOf(keep);
  for (const [pid, p] of readProcesses(marker)) {
    if (!p.marked || !pick(pid, p)) continue;
    found.push(p.comm);
    const group = autogroupOf(pid);
    try {
      if (group && group !== kept) writeFileSync(`/proc/${pid}/autogroup`, String(nice));
      for (const tid of readdirSync(`/proc/${pid}/task`).map(Number))
        if (getPriority(tid) !== nice) setPriority(tid, nice);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
