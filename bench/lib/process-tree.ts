import { readdirSync, readFileSync } from 'node:fs';
import { environmentOf } from '../../src/process-environment';

// USER_HZ is 100 on every Linux Node supports; /proc/<pid>/stat counts in it.
const TICK_MS = 10;

export interface ProcessEntry {
  ppid: number;
  comm: string;
  /** user + system CPU since it started, ms. */
  cpuMs: number;
  /** Its environment holds the marker: started by a process that had it (whoever its parent is now). */
  marked: boolean;
  /** Process group and session ids. */
  pgrp: number;
  session: number;
  nice: number;
  /** Scheduling policy (sched.h: 0 SCHED_OTHER, 3 SCHED_BATCH, 5 SCHED_IDLE). */
  policy: number;
}

/** sched.h's SCHED_IDLE. */
export const SCHED_IDLE = 5;

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
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    const environ = marker ? environmentOf(entry) : undefined;
    if (marker && !environ) continue; // gone meanwhile
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.set(Number(entry), {
      ppid: Number(fields[1]),
      comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
      cpuMs: (Number(fields[11]) + Number(fields[12])) * TICK_MS,
      marked: marker !== undefined && (environ?.includes(marker) ?? false),
      // Fields from the state on (proc(5) numbers them from 1: state is 3, pgrp 5, nice 19, policy 41).
      pgrp: Number(fields[2]),
      session: Number(fields[3]),
      nice: Number(fields[16]),
      policy: Number(fields[38]),
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
