import { formatUpid } from '../../src/proxmox/upid';

/**
 * Simulated worker tasks. Each runs its work asynchronously and ends `OK`, `WARNINGS: N` or with the
 * error's first line as exit status, as a PVE worker does; the log keeps every line. Start and end
 * times are kept so tests can read peak concurrency per task type.
 */
export interface SimTask {
  upid: string;
  node: string;
  type: string;
  id: string;
  user: string;
  startMs: number;
  endMs?: number;
  exitstatus?: string;
  log: string[];
  /** Disk imports this task performed (for import-concurrency checks). */
  imports: number;
  /** Resolves when the task has ended. */
  done: Promise<void>;
}

export interface TaskContext {
  log(line: string): void;
  /** Counts a warning; the task then ends `WARNINGS: N`. */
  warn(line: string): void;
  /** Waits; rejects with TaskInterrupted when the task is stopped meanwhile (or already was). */
  sleep(ms: number): Promise<void>;
  countImport(): void;
  /** Aborted when the task is stopped (`DELETE /nodes/{node}/tasks/{upid}`): the worker's SIGTERM. */
  readonly signal: AbortSignal;
}

/**
 * A stopped task's interruption, worded as a PVE worker dies on SIGTERM without a handler of its own
 * (RESTEnvironment's fork_worker: "received interrupt"); a worker with its own handler words it itself.
 */
export class TaskInterrupted extends Error {
  constructor(message = 'received interrupt') {
    super(message);
  }
}

/** A sleep that ends early, rejecting with TaskInterrupted, when `signal` aborts. */
export function interruptibleSleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(new TaskInterrupted());
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new TaskInterrupted());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

let pidCounter = 0x1000;
/** How long PVE's kill_process_group waits after SIGTERM before it sends SIGKILL. */
const STOP_GRACE_MS = 5_000;

export class Tasks {
  private readonly tasks = new Map<string, SimTask>();
  private readonly stops = new Map<string, AbortController>();
  /** Every task in start order (kept for the admin dump). */
  readonly history: SimTask[] = [];

  start(
    spec: { node: string; type: string; id: string; user: string },
    work: (ctx: TaskContext) => Promise<void>,
    options: { failWith?: string; onFailure?: () => void } = {},
  ): SimTask {
    const now = Date.now();
    const upid = formatUpid({
      ...spec,
      pid: ++pidCounter,
      pstart: Math.floor(process.uptime() * 100) + 1000,
      starttime: Math.floor(now / 1000),
    });
    let warnings = 0;
    const stop = new AbortController();
    this.stops.set(upid, stop);
    const task: SimTask = { ...spec, upid, startMs: now, log: [], imports: 0, done: Promise.resolve() };
    const ctx: TaskContext = {
      log: (line) => task.log.push(line),
      warn: (line) => {
        warnings++;
        task.log.push(`WARN: ${line}`);
      },
      sleep: (ms) => interruptibleSleep(ms, stop.signal),
      countImport: () => task.imports++,
      signal: stop.signal,
    };
    task.done = (async () => {
      await Promise.resolve(); // the task runs after the request that started it has answered
      try {
        if (options.failWith) throw new Error(options.failWith);
        await work(ctx);
        task.exitstatus = warnings > 0 ? `WARNINGS: ${warnings}` : 'OK';
      } catch (err) {
        task.exitstatus = (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
        options.onFailure?.();
      }
      const ok = task.exitstatus === 'OK' || task.exitstatus!.startsWith('WARNINGS: ');
      task.log.push(`TASK ${ok ? task.exitstatus : `ERROR: ${task.exitstatus}`}`);
      task.endMs = Date.now();
      this.stops.delete(upid);
    })();
    this.tasks.set(upid, task);
    this.history.push(task);
    return task;
  }

  get(upid: string): SimTask | undefined {
    return this.tasks.get(upid);
  }

  /**
   * Stops a running task as PVE's check_worker does (SIGTERM to the worker's process group, then up to
   * 5 s for it to end, then SIGKILL): the task's sleeps reject and its own handler, if it has one, cleans
   * up and ends the task with an error. Resolves when the task has ended or after those 5 s; a task
   * still running then goes on here (the simulator cannot SIGKILL a promise).
   */
  async stop(upid: string): Promise<void> {
    const task = this.tasks.get(upid);
    const stop = this.stops.get(upid);
    if (!task || !stop || task.endMs !== undefined) return;
    stop.abort();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([task.done, new Promise<void>((r) => (timer = setTimeout(r, STOP_GRACE_MS)))]);
    clearTimeout(timer);
  }

  running(type?: string): SimTask[] {
    return this.history.filter((t) => t.endMs === undefined && (!type || t.type === type));
  }

  /** Waits until every task has ended (used by tests before reading final state). */
  async idle(): Promise<void> {
    await Promise.all(this.history.map((t) => t.done));
  }
}
