import { type ProxmoxApi } from './api';
import { ProxmoxError, ProxmoxInputError, ProxmoxLockedError, ProxmoxTaskError } from './errors';
import { nullSchema, sdnLockTokenSchema, upidOrNullSchema, sdnVnetsSchema, sdnZonesSchema } from './schemas';
import type { TaskResult, WaitOptions } from './tasks';
import { flag } from './quirks';
import { parseUpid } from './upid';

/**
 * SDN zones and vnets, written and applied in one flow. PVE 9 guards SDN with a cluster-wide lock: take
 * it (token), write with the token, apply and release in one call. The apply (`PUT /cluster/sdn`) commits
 * the config and releases the lock before it forks the reload task, so only an error before the apply
 * answered rolls the pending config back (releasing the lock; if even that fails for another reason than
 * the token, forcing the lock off). A reload task that fails or warns afterwards is reported, not rolled
 * back: the config is already running and the lock may already be someone else's. PVE 8 has no lock:
 * write, then apply. Only differences are written; nothing of ours to change or pending means no write.
 * Pending changes ferry did not make (a half-finished GUI edit) are never applied along with ours.
 */
export interface ZoneSpec {
  zone: string;
  type: 'simple' | 'vlan' | 'qinq' | 'vxlan' | 'evpn';
  /** Required for vlan/qinq zones. */
  bridge?: string;
  tag?: number;
  mtu?: number;
  ipam?: string;
  nodes?: string[];
}

export interface VnetSpec {
  vnet: string;
  zone: string;
  /** VLAN id (required in a vlan zone). */
  tag?: number;
  alias?: string;
  vlanaware?: boolean;
  isolatePorts?: boolean;
}

export interface SdnFlowOptions extends WaitOptions {
  /**
   * PVE 9: when the SDN lock is already held, force it off and take it (`take-over`) instead of failing
   * as locked (`fail`, the default). A lock token whose answer was lost leaves the lock held with nobody
   * to release it; callers that serialise all SDN writes (ferry's single SDN permit) may take it over.
   */
  heldLock?: 'fail' | 'take-over';
  /**
   * Apply (and so reload the nodes' network) even when nothing is written or pending: a retry after an
   * apply whose reload failed finds the config already committed, and only a new apply reloads it.
   */
  reapply?: boolean;
}

export interface SdnChanges {
  created: string[];
  updated: string[];
  deleted: string[];
  applied: boolean;
  task?: TaskResult;
}

type Item = Record<string, unknown>;
type Write = {
  method: 'POST' | 'PUT' | 'DELETE';
  path: string;
  params: Record<string, string | number | undefined>;
  id: string;
  kind: 'created' | 'updated' | 'deleted';
};

const SDN_ID = /^[a-zA-Z][a-zA-Z0-9]*[a-zA-Z0-9]$/;
function checkId(kind: string, id: string): string {
  if (!SDN_ID.test(id) || id.length > 8)
    throw new ProxmoxInputError(`SDN ${kind} id must be 2–8 letters/digits starting with a letter: "${id}"`);
  return id;
}

function zoneFields(z: ZoneSpec): Record<string, string | undefined> {
  return {
    type: z.type,
    bridge: z.bridge,
    tag: z.tag?.toString(),
    mtu: z.mtu?.toString(),
    ipam: z.ipam,
    nodes: z.nodes?.join(','),
  };
}

function vnetFields(v: VnetSpec): Record<string, string | undefined> {
  return {
    zone: v.zone,
    tag: v.tag?.toString(),
    alias: v.alias,
    vlanaware: flag(v.vlanaware),
    'isolate-ports': flag(v.isolatePorts),
  };
}

/** Fields that differ between the wanted and the existing item (type is fixed at creation). */
function differences(wanted: Record<string, string | undefined>, existing: Item): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(wanted))
    if (v !== undefined && k !== 'type' && String(existing[k] ?? '') !== v) out[k] = v;
  return out;
}

export class SdnApi {
  constructor(private readonly api: ProxmoxApi) {}

  /** Zones as edited (pending included). */
  async zones() {
    return this.api.call('GET', '/cluster/sdn/zones', {}, sdnZonesSchema);
  }

  async vnets() {
    return this.api.call('GET', '/cluster/sdn/vnets', {}, sdnVnetsSchema);
  }

  /** Items that differ between the edited and the running config. */
  async pending(): Promise<string[]> {
    return (await this.pendingItems()).map((p) => p.name);
  }

  /** Pending items (`zone X`, `vnet Y`), a vnet with its zone. */
  private async pendingItems(): Promise<PendingItem[]> {
    const [zones, vnets] = await Promise.all([
      this.api.call('GET', '/cluster/sdn/zones', { pending: 1 }, sdnZonesSchema),
      this.api.call('GET', '/cluster/sdn/vnets', { pending: 1 }, sdnVnetsSchema),
    ]);
    return [
      ...zones.filter((z) => z.state).map((z) => ({ name: `zone ${z.zone}` })),
      ...vnets.filter((v) => v.state).map((v) => ({ name: `vnet ${v.vnet}`, zone: v.zone })),
    ];
  }

  /** Makes the zones and vnets exist as given, then applies. */
  async ensure(desired: { zones?: ZoneSpec[]; vnets?: VnetSpec[] }, options: SdnFlowOptions = {}): Promise<SdnChanges> {
    const [zones, vnets] = await Promise.all([this.zones(), this.vnets()]);
    const writes: Write[] = [];
    for (const z of desired.zones ?? []) {
      checkId('zone', z.zone);
      const existing = zones.find((x) => x.zone === z.zone);
      if (!existing)
        writes.push({
          method: 'POST',
          path: '/cluster/sdn/zones',
          params: { zone: z.zone, ...zoneFields(z) },
          id: z.zone,
          kind: 'created',
        });
      else {
        if (existing.type !== z.type)
          throw new ProxmoxError(`SDN zone ${z.zone} exists with type ${existing.type}, not ${z.type}`, 'policy', {
            zone: z.zone,
          });
        const diff = differences(zoneFields(z), existing);
        if (Object.keys(diff).length)
          writes.push({
            method: 'PUT',
            path: `/cluster/sdn/zones/${z.zone}`,
            params: { ...diff, digest: existing.digest },
            id: z.zone,
            kind: 'updated',
          });
      }
    }
    for (const v of desired.vnets ?? []) {
      checkId('vnet', v.vnet);
      const existing = vnets.find((x) => x.vnet === v.vnet);
      if (!existing)
        writes.push({
          method: 'POST',
          path: '/cluster/sdn/vnets',
          params: { vnet: v.vnet, ...vnetFields(v) },
          id: v.vnet,
          kind: 'created',
        });
      else {
        const diff = differences(vnetFields(v), existing);
        if (Object.keys(diff).length)
          writes.push({
            method: 'PUT',
            path: `/cluster/sdn/vnets/${v.vnet}`,
            params: { ...diff, digest: existing.digest },
            id: v.vnet,
            kind: 'updated',
          });
      }
    }
    return this.writeAndApply(
      writes,
      managed(
        desired.zones?.map((z) => z.zone),
        desired.vnets?.map((v) => v.vnet),
      ),
      options,
    );
  }

  /** Removes vnets, then zones (those that exist), then applies. */
  async remove(ids: { zones?: string[]; vnets?: string[] }, options: SdnFlowOptions = {}): Promise<SdnChanges> {
    const [zones, vnets] = await Promise.all([this.zones(), this.vnets()]);
    const writes: Write[] = [
      ...(ids.vnets ?? [])
        .filter((id) => vnets.some((v) => v.vnet === checkId('vnet', id)))
        .map((id): Write => ({ method: 'DELETE', path: `/cluster/sdn/vnets/${id}`, params: {}, id, kind: 'deleted' })),
      ...(ids.zones ?? [])
        .filter((id) => zones.some((z) => z.zone === checkId('zone', id)))
        .map((id): Write => ({ method: 'DELETE', path: `/cluster/sdn/zones/${id}`, params: {}, id, kind: 'deleted' })),
    ];
    return this.writeAndApply(writes, managed(ids.zones, ids.vnets), options);
  }

  /** `ours`: what this call manages; only pending changes of those may be applied. */
  private async writeAndApply(writes: Write[], ours: Ours, options: SdnFlowOptions): Promise<SdnChanges> {
    const { heldLock, reapply, ...wait } = options;
    const result: SdnChanges = { created: [], updated: [], deleted: [], applied: false };
    const pending = await this.pendingItems();
    // Our own pending changes (written by an earlier attempt, not applied) still need the apply.
    if (writes.length === 0 && !pending.some(ours) && !reapply) return result;
    // Checked before the lock too, so PVE 8 (no lock) never deploys someone else's edit either.
    refuseForeign(pending, ours);
    const { sdnLock } = await this.api.version();
    const token = sdnLock ? await this.lock(heldLock ?? 'fail', ours) : undefined;
    let upid: string | null;
    try {
      const written = new Set<string>();
      for (const w of writes) {
        // The digest covers a whole section (all zones, or all vnets): after our first write to a section
        // it has changed, so only that first write can carry the digest we read.
        const section = w.path.split('/')[3]!;
        const params = written.has(section) ? { ...w.params, digest: undefined } : w.params;
        written.add(section);
        await this.api.call(w.method, w.path, { ...params, 'lock-token': token }, nullSchema);
        result[w.kind].push(w.id);
      }
      upid = await this.api.call(
        'PUT',
        '/cluster/sdn',
        token ? { 'lock-token': token, 'release-lock': 1 } : {},
        upidOrNullSchema,
      );
    } catch (err) {
      if (token) await this.rollback(token);
      throw err;
    }
    // Committed, lock released: from here on nothing is rolled back, a failed reload is reported.
    const task = upid === null ? null : await this.waitReload(upid, { timeoutMs: 120_000, ...wait });
    return { ...result, applied: true, ...(task ? { task } : {}) };
  }

  /** The reload task: a failure, or a warning (pve-network turns a node's failed reload into one), is an error. */
  private async waitReload(upid: string, wait: WaitOptions): Promise<TaskResult> {
    let task: TaskResult;
    try {
      task = await this.api.tasks.wait(upid, wait);
    } catch (err) {
      if (!(err instanceof ProxmoxTaskError)) throw err;
      throw reloadFailed(upid, err.exitstatus, err.log, err);
    }
    if (task.warnings > 0) throw reloadFailed(upid, task.exitstatus, task.warningLines);
    return task;
  }

  /**
   * Takes the lock without allowing pending changes; when PVE refuses because some are pending, takes it
   * allowing them and checks under the lock (nobody else can write then) that every one is ours.
   */
  private async lock(heldLock: 'fail' | 'take-over', ours: Ours): Promise<string> {
    try {
      return await this.takeLock(heldLock, false);
    } catch (err) {
      if (!isPendingRefusal(err)) throw err;
    }
    const token = await this.takeLock(heldLock, true);
    try {
      refuseForeign(await this.pendingItems(), ours);
    } catch (err) {
      await this.api.call('DELETE', '/cluster/sdn/lock', { 'lock-token': token }, nullSchema).catch(() => undefined);
      throw err;
    }
    return token;
  }

  private async takeLock(heldLock: 'fail' | 'take-over', allowPending: boolean): Promise<string> {
    const take = () =>
      this.api.call('POST', '/cluster/sdn/lock', { 'allow-pending': allowPending ? 1 : undefined }, sdnLockTokenSchema);
    try {
      return await take();
    } catch (err) {
      // Only a lock held under another token is taken over; a refusal for pending changes means no lock is held.
      if (heldLock !== 'take-over' || !(err instanceof ProxmoxLockedError) || isPendingRefusal(err)) throw err;
      await this.api.call('DELETE', '/cluster/sdn/lock', { force: 1 }, nullSchema);
      return take();
    }
  }

  /**
   * Restores the running config and releases the lock. If that fails because our token is no longer the
   * lock's, the lock is someone else's (or gone) and is left alone; any other failure forces it off.
   */
  private async rollback(token: string): Promise<void> {
    try {
      await this.api.call('POST', '/cluster/sdn/rollback', { 'lock-token': token, 'release-lock': 1 }, nullSchema);
    } catch (err) {
      if (err instanceof ProxmoxError && /invalid lock token/.test(err.message)) return;
      await this.api.call('DELETE', '/cluster/sdn/lock', { force: 1 }, nullSchema).catch(() => undefined);
    }
  }
}

/** PVE refused the lock because changes are pending (no lock is held then: a held one is refused first). */
const isPendingRefusal = (err: unknown) =>
  err instanceof ProxmoxError && /configuration has pending changes/.test(err.message);

type PendingItem = { name: string; zone?: string };
type Ours = (item: PendingItem) => boolean;

/** The zones and vnets a call manages, and every vnet in one of those zones (ferry owns its zone). */
function managed(zones: string[] = [], vnets: string[] = []): Ours {
  const names = new Set([...zones.map((z) => `zone ${z}`), ...vnets.map((v) => `vnet ${v}`)]);
  return (item) => names.has(item.name) || (item.zone !== undefined && zones.includes(item.zone));
}

/** Someone else's pending SDN changes would be deployed by our apply: wait until they are applied or reverted. */
function refuseForeign(pending: PendingItem[], ours: Ours): void {
  const foreign = pending.filter((p) => !ours(p)).map((p) => p.name);
  if (foreign.length === 0) return;
  throw new ProxmoxLockedError(
    `SDN has pending changes ferry did not make (${foreign.join(', ')}); applying would deploy them too. Apply or revert them in Proxmox (Datacenter → SDN), then retry`,
    { foreignPending: foreign },
  );
}

/**
 * The config is committed (running) but the reload on the nodes failed or warned. Applying again only
 * reloads again, so it is retried (a reload can fail for a moment, e.g. a node busy); one that keeps
 * failing ends the retries with this message for a person.
 */
function reloadFailed(upid: string, exitstatus: string, log: string[], cause?: unknown): ProxmoxError {
  const { node } = parseUpid(upid);
  const lines = log.length ? `\n  ${log.join('\n  ')}` : '';
  return new ProxmoxError(
    `SDN config applied, but the network reload task ${upid} ended ${exitstatus} (see its log on ${node}; if it keeps failing, fix the node's network, then apply SDN again):${lines}`,
    'transient',
    { upid, exitstatus, log, committed: true },
    cause,
  );
}
