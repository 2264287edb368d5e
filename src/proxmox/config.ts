import { type ProxmoxApi, vmPath, normaliseValue, type ConfigValues } from './api';
import type { ConfigWriteRequest } from './change-params';
import { pendingSchema, vmConfigSchema, nullSchema } from './schemas';
import type { TaskResult, WaitOptions } from './tasks';

/**
 * VM configuration: read (with digest and pending changes) and update with the synchronous PUT,
 * always sending the digest that was read, so a concurrent change fails (conflict) instead of being
 * overwritten. `ensure` writes only the keys whose value differs: repeating it writes nothing.
 */
export interface VmConfig {
  digest: string;
  /** Options as the VM will have them (pending changes applied), all as strings. */
  values: Record<string, string>;
}

export interface PendingChange {
  key: string;
  /** Current value (absent for a key being added). */
  value?: string;
  /** Value waiting for the next VM start. */
  pending?: string;
  /** Deletion waiting; `force` = the volume is removed, not kept as unusedN. */
  delete?: 'delete' | 'force';
}

export interface ConfigUpdate {
  set?: ConfigValues;
  delete?: string[];
  /** Digest read before; the write fails with ProxmoxDigestMismatchError if the config changed since. */
  digest?: string;
}

export class VmConfigApi {
  constructor(private readonly api: ProxmoxApi) {}

  /** Config with pending changes applied (PVE's default view) and its digest. */
  async get(node: string, vmid: number, options: { current?: boolean } = {}): Promise<VmConfig> {
    return this.api.call(
      'GET',
      `${vmPath(node, vmid)}/config`,
      { current: options.current ? 1 : undefined },
      vmConfigSchema,
    );
  }

  async pending(node: string, vmid: number): Promise<PendingChange[]> {
    const rows = await this.api.call('GET', `${vmPath(node, vmid)}/pending`, {}, pendingSchema);
    return rows
      .filter((r) => r.pending !== undefined || r.delete !== undefined)
      .map((r) => ({
        key: r.key,
        ...(r.value !== undefined ? { value: r.value } : {}),
        ...(r.pending !== undefined ? { pending: r.pending } : {}),
        ...(r.delete !== undefined ? { delete: r.delete === 2 ? ('force' as const) : ('delete' as const) } : {}),
      }));
  }

  /** The rows of `GET …/pending` as PVE sends them: every key's value, its pending value or deletion, and the digest. */
  async pendingRows(
    node: string,
    vmid: number,
  ): Promise<Array<{ key: string; value?: string; pending?: string; delete?: number }>> {
    const rows = await this.api.call('GET', `${vmPath(node, vmid)}/pending`, {}, pendingSchema);
    return rows.map((r) => ({
      key: r.key,
      ...(r.value !== undefined ? { value: String(r.value) } : {}),
      ...(r.pending !== undefined ? { pending: String(r.pending) } : {}),
      ...(r.delete !== undefined ? { delete: r.delete } : {}),
    }));
  }

  /** Config, digest and the changes still pending (those wait for the next VM start). */
  async read(node: string, vmid: number): Promise<VmConfig & { pending: PendingChange[] }> {
    const [config, pending] = await Promise.all([this.get(node, vmid), this.pending(node, vmid)]);
    return { ...config, pending };
  }

  /**
   * A day-2 config write (change-params.ts): the synchronous `PUT`, or the `POST` task when it allocates a
   * disk. A hotplug Proxmox cannot do answers 400 naming the key (`hotplug problem - …`); the value stays pending.
   */
  async write(
    node: string,
    vmid: number,
    request: ConfigWriteRequest,
    wait: WaitOptions = {},
  ): Promise<TaskResult | null> {
    if (request.method === 'PUT') {
      await this.api.call('PUT', `${vmPath(node, vmid)}/config`, request.params, nullSchema);
      return null;
    }
    return this.api.task('POST', `${vmPath(node, vmid)}/config`, request.params, wait);
  }

  /** The synchronous `PUT …/config`. */
  async update(node: string, vmid: number, update: ConfigUpdate): Promise<void> {
    const params: Record<string, string | undefined> = { digest: update.digest };
    for (const [key, value] of Object.entries(update.set ?? {}))
      if (value !== undefined) params[key] = normaliseValue(value);
    if (update.delete?.length) params.delete = update.delete.join(',');
    await this.api.call('PUT', `${vmPath(node, vmid)}/config`, params, nullSchema);
  }

  /**
   * Makes the listed options have the given values and the `remove` keys absent, writing only what
   * differs (with the digest of the read). Returns the keys written.
   */
  async ensure(
    node: string,
    vmid: number,
    desired: ConfigValues,
    remove: string[] = [],
  ): Promise<{ changed: string[] }> {
    const config = await this.get(node, vmid);
    const set: ConfigValues = {};
    for (const [key, value] of Object.entries(desired)) {
      if (value !== undefined && config.values[key] !== normaliseValue(value)) set[key] = value;
    }
    const deletions = remove.filter((key) => key in config.values);
    const changed = [...Object.keys(set), ...deletions];
    if (changed.length === 0) return { changed };
    await this.update(node, vmid, { set, delete: deletions, digest: config.digest });
    return { changed };
  }
}
