import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { SimFixture } from './proxmox';

const run = promisify(execFile);

/**
 * Wire-level steps against the simulator for the lifecycle tests: requests that must succeed, a task
 * started and awaited, a VM created; and disk contents written and checked with qemu-io (Debian
 * qemu-utils), so a snapshot or clone test reads what the guest would see.
 */
export interface SimApi {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are checked field by field
  ok(method: string, path: string, form?: Record<string, string>): Promise<any>;
  /** Starts a task, waits for its end and returns its exit status. */
  task(method: string, path: string, form?: Record<string, string>): Promise<string>;
  /** Waits for a task the caller started. */
  finish(upid: string): Promise<string>;
  /** The task's log lines. */
  log(upid: string): string[];
  createVm(vmid: number, form: Record<string, string>, node?: string): Promise<void>;
}

export function simApi(fx: SimFixture): SimApi {
  const api = (p: string) => `/api2/json${p}`;
  const finish = async (upid: string) => {
    const task = fx.sim.cluster.tasks.get(upid);
    if (!task) throw new Error(`no task ${upid}`);
    await task.done;
    return task.exitstatus!;
  };
  const self: SimApi = {
    async ok(method, path, form) {
      const r = await fx.raw(method, api(path), form ? { form } : {});
      expect([method, path, r.status, r.body?.message, r.body?.errors]).toEqual([
        method,
        path,
        200,
        undefined,
        undefined,
      ]);
      return r.body.data;
    },
    async task(method, path, form) {
      return finish(await self.ok(method, path, form));
    },
    finish,
    log: (upid) => fx.sim.cluster.tasks.get(upid)!.log,
    async createVm(vmid, form, node = 'pve1') {
      expect(await self.task('POST', `/nodes/${node}/qemu`, { vmid: String(vmid), ...form })).toBe('OK');
    },
  };
  return self;
}

/** Fills `bytes` at `offset` of a disk image with one byte value (qemu-io `write -P`). */
export async function writePattern(
  file: string,
  format: string,
  pattern: number,
  offset = 0,
  bytes = 65536,
): Promise<void> {
  await run('qemu-io', ['-f', format, '-c', `write -P ${pattern} ${offset} ${bytes}`, file]);
}

/** Whether the image holds that byte value there (qemu-io `read -P` verifies the pattern). */
export async function hasPattern(
  file: string,
  format: string,
  pattern: number,
  offset = 0,
  bytes = 65536,
): Promise<boolean> {
  try {
    const { stdout } = await run('qemu-io', [
      '-r',
      '-U',
      '-f',
      format,
      '-c',
      `read -P ${pattern} ${offset} ${bytes}`,
      file,
    ]);
    return !/Pattern verification failed/.test(stdout);
  } catch (err) {
    const stdout = (err as { stdout?: string }).stdout ?? '';
    if (/Pattern verification failed/.test(stdout)) return false; // qemu-io exits 1 then
    throw err;
  }
}
