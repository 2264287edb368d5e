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
  sleep(ms: number): Promise<void>;
  countImport(): void;
}

let pidCounter = 0x1000;

export class Tasks {
  private readonly tasks = new Map<string, SimTask>();
  /** Every task in start order (kept for the admin dump). */
  readonly history: SimTask[] = [];

  start(
    spec: { node: string; type: string; id: string; user: string },
    work: (ctx: TaskContext) => Promise<void>,
    options: { failWith?: string; onFailure?: () => void } = {},
  ): SimTask {
    const now = Date.now();
    const upid = formatUpid({ ...spec, pid: ++pidCounter, pstart: Math.floor(process.uptime() * 100) + 1000, starttime: Math.floor(now / 1000) });
    let warnings = 0;
    const task: SimTask = { ...spec, upid, startMs: now, log: [], imports: 0, done: Promise.resolve() };
    const ctx: TaskContext = {
      log: (line) => task.log.push(line),
      warn: (line) => {
        warnings++;
        task.log.push(`WARN: ${line}`);
      },
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      countImport: () => task.imports++,
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
    })();
    this.tasks.set(upid, task);
    this.history.push(task);
    return task;
  }

  get(upid: string): SimTask | undefined {
    return this.tasks.get(upid);
  }

  running(type?: string): SimTask[] {
    return this.history.filter((t) => t.endMs === undefined && (!type || t.type === type));
  }

  /** Waits until every task has ended (used by tests before reading final state). */
  async idle(): Promise<void> {
    await Promise.all(this.history.map((t) => t.done));
  }
}
