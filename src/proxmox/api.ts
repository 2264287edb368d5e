import { ProxmoxInputError } from './errors';
import type { TaskResult, TaskWaiter, WaitOptions } from './tasks';
import type { Method, Params, ProxmoxTransport } from './transport';
import type { PveVersion } from './version';
import type { z } from 'zod';
import { nodePath } from './node-name';
import { flag } from './quirks';
import { upidOrNullSchema } from './schemas';

/** What every operation group shares: the transport, the task waiter and the (cached) PVE version. */
export class ProxmoxApi {
  constructor(
    readonly transport: ProxmoxTransport,
    readonly tasks: TaskWaiter,
    readonly version: () => Promise<PveVersion>,
  ) {}

  call<S extends z.ZodType>(method: Method, path: string, params: Params, schema: S): Promise<z.output<S>> {
    return this.transport.call(method, path, params, schema);
  }

  /** A write that answers a UPID (or null when done in the request); waits for the task. */
  async task(method: Method, path: string, params: Params, wait: WaitOptions = {}): Promise<TaskResult | null> {
    const upid = await this.call(method, path, params, upidOrNullSchema);
    return upid === null ? null : this.tasks.wait(upid, wait);
  }
}

/** `/nodes/{node}/qemu/{vmid}` with both parts checked, so a bad value cannot change the path. */
export function vmPath(node: string, vmid: number): string {
  const base = nodePath(node);
  if (!Number.isInteger(vmid) || vmid < 100 || vmid > 999_999_999)
    throw new ProxmoxInputError(`not a VMID (100–999999999): ${vmid}`);
  return `${base}/qemu/${vmid}`;
}

/** The option keys of a write: `true`/`false` as PVE's 1/0, undefined dropped. */
export type ConfigValues = Record<string, string | number | boolean | undefined>;

export function normaliseValue(value: string | number | boolean): string {
  return typeof value === 'boolean' ? flag(value) : String(value);
}
