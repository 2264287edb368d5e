import { type ProxmoxApi, vmPath } from './api';
import { ProxmoxTaskError } from './errors';
import type { TaskResult, WaitOptions } from './tasks';
import { vmStatusSchema } from './schemas';

/**
 * Start, shutdown and stop, each a no-op when the VM is already in the wanted state. Shutdown asks the
 * guest (ACPI) and waits up to `timeoutS`; with `forceStop` PVE then kills it and the task ends
 * `WARNINGS: 1` (returned as `warnings`), without it the task fails "got timeout".
 */
export interface PowerResult {
  changed: boolean;
  task?: TaskResult;
}

export class PowerApi {
  constructor(private readonly api: ProxmoxApi) {}

  async status(node: string, vmid: number) {
    return this.api.call('GET', `${vmPath(node, vmid)}/status/current`, {}, vmStatusSchema);
  }

  async start(node: string, vmid: number, wait: WaitOptions = {}): Promise<PowerResult> {
    if ((await this.status(node, vmid)).status === 'running') return { changed: false };
    try {
      const task = await this.api.task('POST', `${vmPath(node, vmid)}/status/start`, {}, wait);
      return { changed: true, ...(task ? { task } : {}) };
    } catch (err) {
      // Started by an earlier attempt whose answer was lost.
      if (err instanceof ProxmoxTaskError && /already running/.test(err.exitstatus)) return { changed: false };
      throw err;
    }
  }

  async shutdown(
    node: string,
    vmid: number,
    options: { timeoutS?: number; forceStop?: boolean } = {},
    wait: WaitOptions = {},
  ): Promise<PowerResult> {
    if ((await this.status(node, vmid)).status === 'stopped') return { changed: false };
    const timeoutS = options.timeoutS ?? 60;
    const task = await this.api.task(
      'POST',
      `${vmPath(node, vmid)}/status/shutdown`,
      { timeout: timeoutS, forceStop: options.forceStop },
      // The task itself takes up to timeoutS (plus the forced stop): wait a little longer than that.
      { ...wait, timeoutMs: Math.max(wait.timeoutMs ?? 0, (timeoutS + 30) * 1000) },
    );
    return { changed: true, ...(task ? { task } : {}) };
  }

  /** Hard stop (like pulling the plug). `skiplock` (root@pam only): stop a VM that holds a lock. */
  async stop(
    node: string,
    vmid: number,
    wait: WaitOptions = {},
    options: { skiplock?: boolean } = {},
  ): Promise<PowerResult> {
    if ((await this.status(node, vmid)).status === 'stopped') return { changed: false };
    const task = await this.api.task('POST', `${vmPath(node, vmid)}/status/stop`, { skiplock: options.skiplock }, wait);
    return { changed: true, ...(task ? { task } : {}) };
  }
}
