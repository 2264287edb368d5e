import { z } from 'zod';
import { type ProxmoxApi } from './api';
import { nodePath } from './node-name';
import { pveBool, pveNumber } from './quirks';
import { nodeListSchema } from './schemas';

/** Nodes and what they offer VMs (storages, bridges and VNets), read through the API for preflight checks. */
export interface NodeSummary {
  node: string;
  status: 'online' | 'offline' | 'unknown';
}

export interface NodeStorage {
  storage: string;
  content: string[];
  active: boolean;
  enabled: boolean;
  /** Free bytes, when the node says (an active storage). */
  availBytes?: number;
}

export interface NodeNetwork {
  iface: string;
  type: string;
  active: boolean;
}

const storagesSchema = z.array(
  z.looseObject({
    storage: z.string(),
    content: z.string(),
    active: pveBool.optional(),
    enabled: pveBool.optional(),
    avail: pveNumber.optional(),
  }),
);
const networksSchema = z.array(z.looseObject({ iface: z.string(), type: z.string(), active: pveBool.optional() }));

export class NodesApi {
  constructor(private readonly api: ProxmoxApi) {}

  /** Every cluster node with its state. */
  async list(): Promise<NodeSummary[]> {
    return (await this.api.call('GET', '/nodes', {}, nodeListSchema)).map((n) => ({ node: n.node, status: n.status }));
  }

  /** The storages the node sees, with the content types they take. */
  async storages(node: string): Promise<NodeStorage[]> {
    return (await this.api.call('GET', `${nodePath(node)}/storage`, {}, storagesSchema)).map((s) => ({
      storage: s.storage,
      content: s.content.split(',').filter(Boolean),
      active: s.active ?? false,
      enabled: s.enabled ?? true,
      ...(s.avail !== undefined ? { availBytes: s.avail } : {}),
    }));
  }

  /** The node's network interfaces (bridges, bonds, VNets, …). */
  async networks(node: string): Promise<NodeNetwork[]> {
    return (await this.api.call('GET', `${nodePath(node)}/network`, {}, networksSchema)).map((n) => ({
      iface: n.iface,
      type: n.type,
      active: n.active ?? false,
    }));
  }
}
