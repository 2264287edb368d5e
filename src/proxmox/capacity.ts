import { z } from 'zod';
import type { PlacementNode, PlacementStorage } from '../domain/placement';
import { type ProxmoxApi } from './api';
import { nodePath } from './node-name';
import { pveBool, pveInt, pveNumber } from './quirks';

/**
 * What the cluster can still take, as placement needs it: each node's memory and CPUs with the
 * memory the VMs there are promised (`maxmem`, running or not), and each storage's room per node that
 * reaches it. One `/cluster/resources` read (nodes and VMs) and one storage list per online node
 * (`/nodes/{node}/storage`: pve-storage's storage_info, with total/used/avail).
 */
export interface ClusterCapacity {
  nodes: PlacementNode[];
  storages: PlacementStorage[];
  /** The VMs counted in committedBytes, by node (for the plan's "already there"). */
  vms: Array<{ vmid: number; node: string; maxmemBytes: number; cpus: number }>;
}

const rowsSchema = z.array(
  z.looseObject({
    type: z.string(),
    node: z.string().optional(),
    vmid: pveInt.optional(),
    status: z.string().optional(),
    maxmem: pveNumber.optional(),
    maxcpu: pveNumber.optional(),
    template: pveBool.optional(),
  }),
);

const nodeStoragesSchema = z.array(
  z.looseObject({
    storage: z.string(),
    content: z.string(),
    shared: pveBool.optional(),
    active: pveBool.optional(),
    enabled: pveBool.optional(),
    total: pveNumber.optional(),
    avail: pveNumber.optional(),
  }),
);

export class CapacityApi {
  constructor(private readonly api: ProxmoxApi) {}

  /** The cluster's room; the VMs in `exclude` (this wave's own shells) are not counted as committed. */
  async read(exclude: readonly number[] = []): Promise<ClusterCapacity> {
    const rows = await this.api.call('GET', '/cluster/resources', {}, rowsSchema);
    const skip = new Set(exclude);
    const vms = rows
      .filter(
        (r) => r.type === 'qemu' && r.node !== undefined && r.vmid !== undefined && !r.template && !skip.has(r.vmid),
      )
      .map((r) => ({ vmid: r.vmid!, node: r.node!, maxmemBytes: r.maxmem ?? 0, cpus: r.maxcpu ?? 0 }));
    const nodes: PlacementNode[] = rows
      .filter((r) => r.type === 'node' && r.node !== undefined)
      .map((r) => ({
        name: r.node!,
        online: r.status === 'online',
        memoryBytes: r.maxmem ?? 0,
        cpus: r.maxcpu ?? 0,
        committedBytes: vms.filter((vm) => vm.node === r.node).reduce((sum, vm) => sum + vm.maxmemBytes, 0),
      }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { nodes, storages: await this.storages(nodes.filter((n) => n.online).map((n) => n.name)), vms };
  }

  /** Each storage with its room on every node where it is enabled and active. */
  private async storages(nodes: readonly string[]): Promise<PlacementStorage[]> {
    const byName = new Map<string, PlacementStorage>();
    for (const node of nodes) {
      for (const s of await this.api.call('GET', `${nodePath(node)}/storage`, {}, nodeStoragesSchema)) {
        if (s.enabled === false || s.active === false) continue;
        const storage = byName.get(s.storage) ?? {
          name: s.storage,
          shared: s.shared ?? false,
          content: s.content.split(',').filter(Boolean),
          nodes: [],
        };
        storage.nodes.push({ node, totalBytes: s.total ?? 0, availBytes: s.avail ?? 0 });
        byName.set(s.storage, storage);
      }
    }
    return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}
