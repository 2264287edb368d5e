import { readdirSync } from 'node:fs';
import { environmentOf } from '../process-environment';
import {
  DEFAULT_YIELD_LINGER_MS,
  nextYield,
  YIELD_START,
  type YieldEvent,
  type YieldPolicy,
  type YieldState,
} from '../domain/conversion';

/**
 * Every process of a conversion carries this variable, set to the worker's PID: guestfish's server and
 * virt-v2v leave the worker's process tree and process group (a daemon, a group of its own), and the
 * appliances' QEMU and nbdkit are their children, but all of them inherit the environment.
 */
export const CONVERSION_MARKER = 'FERRY_CONVERSION_OF';

/** The variable for a conversion's processes started by this worker. */
export function conversionMarker(): Record<string, string> {
  return { [CONVERSION_MARKER]: String(process.pid) };
}

/** PIDs of the processes whose environment says a conversion of worker `owner` started them (all owners without it). */
export function conversionProcesses(owner?: number): Array<{ pid: number; owner: number }> {
  const found: Array<{ pid: number; owner: number }> = [];
  const prefix = `${CONVERSION_MARKER}=`;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    const variable = environmentOf(pid)?.find((v) => v.startsWith(prefix));
    if (!variable) continue;
    const by = Number(variable.slice(prefix.length));
    if (owner === undefined || by === owner) found.push({ pid, owner: by });
  }
  return found;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // gone
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Lets go on the conversion processes of workers that died while they were paused: stopped, they would
 * never see that their worker is gone (a retry kills what its record names; their appliances, children
 * of a killed server, would stay stopped).
 */
export function continueOrphanedConversions(): number {
  const orphans = conversionProcesses().filter((p) => p.owner !== process.pid && !alive(p.owner));
  for (const p of orphans) signal(p.pid, 'SIGCONT');
  return orphans.length;
}

/** How often a pause looks again for conversion processes started since it began. */
const SWEEP_MS = 500;

/**
 * This worker's conversions, paused (SIGSTOP) while downtime activities run in it and let go on
 * (SIGCONT) by the rules of src/domain/conversion/yield-to-cutovers.ts. One per worker process: the
 * processes are the process's own, whichever of its task queues runs the activities.
 */
export class ConversionYield {
  private state: YieldState = YIELD_START;
  private recheck?: NodeJS.Timeout;
  private sweep?: NodeJS.Timeout;
  private readonly stopped = new Set<number>();
  /** Pauses that stopped a process, their time so far, and when the one under way first stopped one. */
  private pauses = 0;
  private pausedMs = 0;
  private stoppingSince?: number;
  private readonly onExit = () => this.letGo();

  constructor(
    private readonly policy: YieldPolicy,
    private readonly log: (line: string) => void = () => undefined,
  ) {
    continueOrphanedConversions();
    process.once('exit', this.onExit);
  }

  /** A downtime activity starts; call what it returns when it ends. */
  hold(): () => void {
    this.apply('hold');
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.apply('release');
    };
  }

  /** Whether the conversions are paused now (there may be none to pause). */
  get paused(): boolean {
    return this.state.pausedSince !== undefined;
  }

  /** Pauses that stopped conversion processes, and how long they were stopped, the pause under way included. */
  totals(now = Date.now()): { pauses: number; pausedMs: number } {
    const current = this.stoppingSince !== undefined ? now - this.stoppingSince : 0;
    return { pauses: this.pauses, pausedMs: this.pausedMs + current };
  }

  /** Lets every paused conversion go on and stops deciding (the worker shuts down). */
  close(): void {
    process.removeListener('exit', this.onExit);
    clearTimeout(this.recheck);
    this.letGo();
  }

  private apply(event: YieldEvent): void {
    const now = Date.now();
    const decision = nextYield(this.policy, this.state, event, now);
    this.state = decision.state;
    if (decision.action === 'pause') this.pause();
    if (decision.action === 'resume') this.resume();
    clearTimeout(this.recheck);
    this.recheck = undefined;
    if (decision.recheckAt !== undefined) {
      this.recheck = setTimeout(() => this.apply('tick'), Math.max(0, decision.recheckAt - now));
      this.recheck.unref();
    }
  }

  private pause(): void {
    this.stopAll();
    this.sweep = setInterval(() => this.stopAll(), SWEEP_MS);
    this.sweep.unref();
  }

  private resume(): void {
    const since = this.stoppingSince;
    const count = this.letGo();
    if (since === undefined) return; // nothing was converting
    this.pausedMs += Date.now() - since;
    this.stoppingSince = undefined;
    this.log(
      `conversions go on: ${count} process(es) continued after ${((Date.now() - since) / 1000).toFixed(1)} s (${this.pauses} pause(s), ${(this.pausedMs / 1000).toFixed(1)} s paused in all)`,
    );
  }

  /** Stops this worker's conversion processes that run (new ones too: virt-v2v starts its appliance late). */
  private stopAll(): void {
    const before = this.stopped.size;
    for (const { pid } of conversionProcesses(process.pid)) {
      if (this.stopped.has(pid)) continue;
      signal(pid, 'SIGSTOP');
      this.stopped.add(pid);
    }
    if (before === 0 && this.stopped.size > 0) {
      this.stoppingSince = Date.now();
      this.pauses += 1;
      this.log(`conversions yield to a cutover: ${this.stopped.size} conversion process(es) paused`);
    }
  }

  /** Continues what it stopped, and anything else of this worker's a stop may have caught as it started. */
  private letGo(): number {
    clearInterval(this.sweep);
    this.sweep = undefined;
    const pids = new Set([
      ...this.stopped,
      ...(this.stopped.size > 0 ? conversionProcesses(process.pid).map((p) => p.pid) : []),
    ]);
    for (const pid of pids) signal(pid, 'SIGCONT');
    this.stopped.clear();
    return pids.size;
  }
}

let shared: ConversionYield | undefined;

/**
 * The worker process's one ConversionYield (every set of activities in a process shares it: two would
 * undo each other's pauses). The first policy asked for is the one it keeps.
 */
export function processConversionYield(
  atMostMs: number,
  log?: (line: string) => void,
  lingerMs = DEFAULT_YIELD_LINGER_MS,
): ConversionYield {
  shared ??= new ConversionYield({ atMostMs, lingerMs }, log);
  return shared;
}
