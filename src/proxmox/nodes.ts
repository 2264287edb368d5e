import { z } from 'zod';
import { type ProxmoxApi } from './api';
import { ProxmoxInputError } from './errors';
import { pveBool } from './quirks';

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
}

export interface NodeNetwork {
  iface: string;
  type: string;
  active: boolean;
}

const nodesSchema = z.array(z.looseObject({ node: z.string(), status: z.enum(['online', 'offline', 'unknown']) }));
const storagesSchema = z.array(
  z.looseObject({ storage: z.string(), content: z.string(), active: pveBool.optional(), enabled: pveBool.optional() }),
);
const networksSchema = z.array(z.looseObject({ iface: z.string(), type: z.string(), active: pveBool.optional() }));

function nodePath(node: string): string {
  if (!/^[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?$/.test(node)) throw new ProxmoxInputError(`not a Proxmox node name: "${node}"`);
  return `/nodes/${node}`;
}

export class NodesApi {
  constructor(private readonly api: ProxmoxApi) {}

  async list(): Promise<NodeSummary[]> {
    return (await this.api.call('GET', '/nodes', {}, nodesSchema)).map((n) => ({ node: n.node, status: n.status }));
  }

  /** The storages the node sees, with the content types they take. */
  async storages(node: string): Promise<NodeStorage[]> {
    return (await this.api.call('GET', `${nodePath(node)}/storage`, {}, storagesSchema)).map((s) => ({
      storage: s.storage,
      content: s.content.split(',').filter(Boolean),
      active: s.active ?? false,
      enabled: s.enabled ?? true,
    }));
  }

  /** The node's network interfaces (bridges, bonds, VNets, …). */
  async networks(node: string): Promise<NodeNetwork[]> {
    return (await this.api.call('GET', `${nodePath(node)}/network`, {}, networksSchema)).map((n) => ({ iface: n.iface, type: n.type, active: n.active ?? false }));
  }
}
