import { ProxmoxInputError } from './errors';

/** PVE's node name (`pve-node`: a DNS label), as a pattern to embed in others (UPIDs) and as a checked path. */
export const NODE_NAME = '[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?';
const NODE_NAME_RE = new RegExp(`^${NODE_NAME}$`);

/** `/nodes/{node}`, the name checked so a bad value cannot change the path. */
export function nodePath(node: string): string {
  if (!NODE_NAME_RE.test(node)) throw new ProxmoxInputError(`not a Proxmox node name: "${node}"`);
  return `/nodes/${node}`;
}
