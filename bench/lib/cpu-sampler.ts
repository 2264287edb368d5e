import { machineCpu } from './cpu-by-command';
import { isUnder, readProcesses } from './process-tree';

/**
 * Where the machine's CPU goes, by who runs it: the ferry worker itself; the processes it started (by
 * the marker in their environment: guest conversion's virt-v2v, guestfish and the libguestfs appliance's
 * QEMU, reparented or not; the overlays' qemu-img); the bench process (the Proxmox simulator runs in it);
 * the bench's other children (Temporal, vcsim, the simulator's QEMU guests); and the rest of the machine
 * (other sessions on a shared host: the machine's busy time less the above).
 */
export const CPU_GROUPS = ['worker', 'conversion', 'bench', 'servers', 'other'] as const;
export type CpuGroup = (typeof CPU_GROUPS)[number];

type OwnGroup = Exclude<CpuGroup, 'other'>;

interface Sample {
  at: number;
  busyMs: number;
  allMs: number;
  /** Our processes: their group and CPU so far. */
  processes: Map<number, { group: OwnGroup; cpuMs: number }>;
}

export interface CpuShare {
  /** Busy share of all cores (0–1). */
  machine: number;
  /** Each group's CPU in cores (0–n) over the span. */
  cores: Record<CpuGroup, number>;
}

/** One sample: the machine's counters and the CPU so far of each of our processes. */
function takeSample(workerPid: number, marker: string): Sample {
  const machine = machineCpu();
  const all = readProcesses(marker);
  const processes = new Map<number, { group: OwnGroup; cpuMs: number }>();
  for (const [pid, p] of all) {
    const group: OwnGroup | undefined =
      pid === workerPid
        ? 'worker'
        : p.marked || isUnder(pid, workerPid, all)
          ? 'conversion'
          : pid === process.pid
            ? 'bench'
            : isUnder(pid, process.pid, all)
              ? 'servers'
              : undefined;
    if (group) processes.set(pid, { group, cpuMs: p.cpuMs });
  }
  return {
    at: Date.now(),
    busyMs: machine.busyMs,
    allMs: machine.busyMs + machine.idleMs + machine.stealMs,
    processes,
  };
}

/** Each group's CPU between two samples: per process, so that one that ended meanwhile costs only its own share. */
function spent(before: Sample, after: Sample): Record<OwnGroup, number> {
  const out = { worker: 0, conversion: 0, bench: 0, servers: 0 };
  for (const [pid, p] of after.processes)
    out[p.group] += Math.max(0, p.cpuMs - (before.processes.get(pid)?.cpuMs ?? 0));
  return out;
}

/**
 * Samples every `everyMs`, so that the CPU used during any span of the run can be read afterwards: a
 * shared machine's noise and the conversions' share show here. A process that ended before the span's
 * last sample loses its share of that span (counted as `other`).
 */
export function sampleCpu(
  workerPid: number,
  marker: string,
  everyMs = 1000,
): { during(from: number, to: number): CpuShare; stop(): void } {
  const samples: Sample[] = [takeSample(workerPid, marker)];
  const timer = setInterval(() => samples.push(takeSample(workerPid, marker)), everyMs);
  return {
    during(from, to) {
      const before = samples.findLast((s) => s.at <= from) ?? samples[0]!;
      const after = samples.find((s) => s.at >= to) ?? samples.at(-1)!;
      const wall = after.at - before.at;
      const own = spent(before, after);
      const busy = after.busyMs - before.busyMs;
      const known = own.worker + own.conversion + own.bench + own.servers;
      const cores = (ms: number) => (wall > 0 ? ms / wall : NaN);
      return {
        machine: busy / (after.allMs - before.allMs),
        cores: {
          worker: cores(own.worker),
          conversion: cores(own.conversion),
          bench: cores(own.bench),
          servers: cores(own.servers),
          other: cores(Math.max(0, busy - known)),
        },
      };
    },
    stop: () => clearInterval(timer),
  };
}
