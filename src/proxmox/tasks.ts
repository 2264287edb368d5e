import { ProxmoxTaskError, ProxmoxTaskTimeoutError } from './errors';
import { nodePath } from './node-name';
import { nullSchema, taskListSchema, taskLogSchema, taskStatusSchema } from './schemas';
import type { ProxmoxTransport, ResultAttributes } from './transport';
import { parseUpid } from './upid';
import { pollDelayToward, taskDurations } from '../poll-delay';
import { CopyProgress, type CopiedBytes } from './copy-progress';

/**
 * Waiting for a PVE task (UPID). PVE's own rule for success: the task stopped and its exit status is
 * `OK` or `WARNINGS: N`. Warnings are returned (with the WARN lines of the log), failures carry the exit
 * status and the last lines of the task log.
 */
export interface TaskProgress {
  upid: string;
  type: string;
  elapsedMs: number;
  running: boolean;
  /** Bytes copied, from the task log's progress lines (with `copyProgress`). */
  copied?: CopiedBytes;
}

export interface WaitOptions {
  /** Give up after this long (ProxmoxTaskTimeoutError, retryable; the task may still finish). Default 10 min. */
  timeoutMs?: number;
  /** Longest pause between polls; polls come a tenth of the elapsed time apart up to this. Default 1000 ms. */
  pollIntervalMs?: number;
  /** Called after every poll: activities heartbeat from here. */
  onProgress?: (progress: TaskProgress) => void;
  /** Also read the task log's new lines at each poll for bytes copied (imports). */
  copyProgress?: boolean;
}

/** A task that runs now, as the node's task list shows it. */
export interface ActiveTask {
  upid: string;
  type: string;
  /** The VMID (or other object) it acts on. */
  id: string;
  startedMs: number;
}

export interface TaskResult {
  upid: string;
  exitstatus: string;
  /** N of `WARNINGS: N` (0 for OK). */
  warnings: number;
  /** The WARN lines of the log when there were warnings. */
  warningLines: string[];
  durationMs: number;
}

const LOG_TAIL = 10;
/** Warning lines are looked for in this many last lines of the log. */
const WARN_SCAN = 5000;

export class TaskWaiter {
  constructor(
    private readonly transport: ProxmoxTransport,
    private readonly defaults: { pollIntervalMs: number; timeoutMs: number },
  ) {}

  async wait(upid: string, options: WaitOptions = {}): Promise<TaskResult> {
    const { node, type } = parseUpid(upid);
    const timeoutMs = options.timeoutMs ?? this.defaults.timeoutMs;
    const maxPause = options.pollIntervalMs ?? this.defaults.pollIntervalMs;
    const started = Date.now();
    const path = `/nodes/${node}/tasks/${encodeURIComponent(upid)}`;
    // The task id goes to the caller before any other await: an activity heartbeats it at once, so a
    // retry after its worker died finds it there.
    options.onProgress?.({ upid, type, elapsedMs: 0, running: true });
    const copy = options.copyProgress && options.onProgress ? new LogFollower(this.transport, path) : undefined;
    for (;;) {
      const status = await this.transport.call('GET', `${path}/status`, {}, taskStatusSchema);
      const elapsedMs = Date.now() - started;
      const copied = await copy?.read().catch(() => undefined);
      options.onProgress?.({
        upid,
        type,
        elapsedMs,
        running: status.status === 'running',
        ...(copied ? { copied } : {}),
      });
      if (status.status === 'stopped') {
        taskDurations.record(`pve:${type}`, elapsedMs);
        const exitstatus = status.exitstatus ?? 'unexpected status';
        const warnings = /^WARNINGS: (\d+)$/.exec(exitstatus);
        if (exitstatus === 'OK' || warnings) {
          const warningLines = warnings ? (await this.logTail(path, WARN_SCAN)).filter((l) => /^WARN/.test(l)) : [];
          return {
            upid,
            exitstatus,
            warnings: warnings ? Number(warnings[1]) : 0,
            warningLines,
            durationMs: elapsedMs,
          };
        }
        throw new ProxmoxTaskError(upid, exitstatus, await this.logTail(path, LOG_TAIL));
      }
      if (elapsedMs >= timeoutMs) throw new ProxmoxTaskTimeoutError(upid, elapsedMs);
      await new Promise((r) =>
        setTimeout(
          r,
          Math.min(pollDelayToward(elapsedMs, maxPause, taskDurations.expected(`pve:${type}`)), timeoutMs - elapsedMs),
        ),
      );
    }
  }

  /** Stops a running task (`DELETE /nodes/{node}/tasks/{upid}`: PVE signals its worker); one that ended is left alone. */
  async stop(upid: string): Promise<void> {
    const { node } = parseUpid(upid);
    await this.transport.call('DELETE', `/nodes/${node}/tasks/${encodeURIComponent(upid)}`, {}, nullSchema);
  }

  /**
   * The tasks of `type` running now on `node` for VM `vmid`, oldest first: PVE's list of active tasks
   * (`source=active`, which also holds recently ended ones not yet archived: those are left out).
   */
  async active(query: { node: string; vmid: number; type: string }): Promise<ActiveTask[]> {
    const tasks = await this.transport.call(
      'GET',
      `${nodePath(query.node)}/tasks`,
      { source: 'active', vmid: query.vmid, typefilter: query.type },
      taskListSchema,
    );
    return tasks
      .filter(
        (t) =>
          (t.status === undefined || t.status === 'RUNNING') && t.type === query.type && t.id === String(query.vmid),
      )
      .map((t) => ({ upid: t.upid, type: t.type, id: t.id, startedMs: t.starttime * 1000 }))
      .sort((a, b) => a.startedMs - b.startedMs);
  }

  /**
   * The last `lines` lines of a task log. PVE reads the log from `start` and says how long it is
   * (`total`), so a long log takes a second read from `total - lines`.
   */
  private async logTail(path: string, lines: number): Promise<string[]> {
    const attributes: ResultAttributes = {};
    let entries = await this.transport.call(
      'GET',
      `${path}/log`,
      { start: 0, limit: lines },
      taskLogSchema,
      attributes,
    );
    if (attributes.total !== undefined && attributes.total > entries.length) {
      entries = await this.transport.call(
        'GET',
        `${path}/log`,
        { start: Math.max(0, attributes.total - lines), limit: lines },
        taskLogSchema,
      );
    }
    return entries.map((e) => e.t);
  }
}

/** Reads a task log's new lines at each call and keeps the copy progress they report. */
class LogFollower {
  private seen = 0;
  private readonly progress = new CopyProgress();
  private latest?: CopiedBytes;

  constructor(
    private readonly transport: ProxmoxTransport,
    private readonly path: string,
  ) {}

  async read(): Promise<CopiedBytes | undefined> {
    const entries = await this.transport.call(
      'GET',
      `${this.path}/log`,
      { start: this.seen, limit: 500 },
      taskLogSchema,
    );
    // An empty log reads as one line "no content" (PVE's dump_logfile): nothing was seen yet.
    const lines = entries.length === 1 && entries[0]!.t === 'no content' ? [] : entries;
    this.seen += lines.length;
    this.latest = this.progress.read(lines.map((e) => e.t)) ?? this.latest;
    return this.latest;
  }
}
