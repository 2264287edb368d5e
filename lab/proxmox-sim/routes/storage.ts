import { createHash } from 'node:crypto';
import { paramError } from '../api-error';
import type { Cluster } from '../cluster';
import { diskUsage, quotaUsage } from '../disk-usage';
import type { StorageSpec } from '../storage';
import type { RouteTable } from './types';

/**
 * Storages as pve-storage answers for them: /storage (storage.cfg's entries), a node's storage list and
 * one storage's status (pve-storage's storage_info: type, content, flags and the space of the storage's
 * folder on disk, read with statfs as PVE's `df` does, or its configured size and the bytes its files
 * take, as a thin pool reports), and a storage's content.
 */
const content = (s: StorageSpec) => [...s.content].sort().join(',');

/** A storage.cfg entry as `GET /storage` lists it (the folder as the path; lvmthin on VG pve, pool data). */
export function configEntry(s: StorageSpec): Record<string, unknown> {
  const byType: Record<StorageSpec['type'], Record<string, unknown>> = {
    dir: { path: s.path, ...(s.shared ? { shared: 1 } : {}) },
    nfs: { server: '127.0.0.1', export: s.path, path: s.path, options: 'vers=4.2', shared: 1 },
    lvmthin: { vgname: 'pve', thinpool: 'data' },
  };
  return { storage: s.id, type: s.type, content: content(s), ...byType[s.type] };
}

export function storageCfgDigest(cluster: Cluster): string {
  const text = cluster.storages
    .list()
    .map(
      (s) =>
        `${s.type}: ${s.id}\n${Object.entries(configEntry(s))
          .filter(([k]) => k !== 'storage' && k !== 'type')
          .map(([k, v]) => `\t${k} ${String(v)}`)
          .join('\n')}`,
    )
    .join('\n\n');
  return createHash('sha1').update(`${text}\n`).digest('hex');
}

/** storage_info's figures for one storage on one node. */
export function storageStatus(cluster: Cluster, s: StorageSpec, node: string) {
  const folder = cluster.storages.folder(s, node);
  const quota = typeof s.quotaBytes === 'number' ? s.quotaBytes : s.quotaBytes?.[node];
  const usage = quota === undefined ? diskUsage(folder) : quotaUsage(folder, quota);
  return {
    type: s.type,
    content: content(s),
    shared: s.shared || s.type === 'nfs' ? 1 : 0,
    active: 1,
    enabled: 1,
    total: usage.total,
    used: usage.used,
    avail: usage.avail,
  };
}

/** A storage row of /cluster/resources (pve-manager's extract_storage_stats). */
export function storageResource(cluster: Cluster, s: StorageSpec, node: string): Record<string, unknown> {
  const status = storageStatus(cluster, s, node);
  return {
    id: `storage/${node}/${s.id}`,
    type: 'storage',
    storage: s.id,
    node,
    status: 'available',
    plugintype: s.type,
    shared: status.shared,
    content: status.content,
    disk: status.used,
    maxdisk: status.total,
  };
}

export const storageRoutes: RouteTable = {
  'GET /storage': ({ cluster, params, perm }) => {
    const digest = storageCfgDigest(cluster);
    return cluster.storages
      .list()
      .filter((s) => perm.has(`/storage/${s.id}`, ['Datastore.Audit', 'Datastore.AllocateSpace'], true))
      .filter((s) => !params.type || s.type === params.type)
      .map((s) => ({ ...configEntry(s), digest }));
  },

  'GET /nodes/{node}/storage': ({ cluster, params, perm }) => {
    cluster.requireNode(params.node!);
    if (params.storage && !cluster.storages.get(params.storage)) throw paramError({ storage: 'No such storage.' });
    return cluster.storages
      .list()
      .filter((s) => perm.has(`/storage/${s.id}`, ['Datastore.Audit', 'Datastore.AllocateSpace'], true))
      .filter((s) => !params.storage || s.id === params.storage)
      .filter((s) => !params.content || params.content.split(/[,;\s]+/).some((c) => s.content.includes(c)))
      .map((s) => {
        const status = storageStatus(cluster, s, params.node!);
        return { storage: s.id, ...status, ...(status.total ? { used_fraction: status.used / status.total } : {}) };
      });
  },

  'GET /nodes/{node}/storage/{storage}/status': ({ cluster, params }) => {
    cluster.requireNode(params.node!);
    const s = cluster.storages.get(params.storage!);
    if (!s) throw paramError({ storage: 'No such storage.' });
    return storageStatus(cluster, s, params.node!);
  },

  'GET /nodes/{node}/storage/{storage}/content': ({ cluster, params }) => {
    cluster.requireNode(params.node!);
    const storage = cluster.storages.require(params.storage!);
    return cluster.storages.content(storage, params.node!, {
      content: params.content,
      vmid: params.vmid === undefined ? undefined : Number(params.vmid),
    });
  },
};
