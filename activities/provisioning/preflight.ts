import type { ProxmoxClient } from '../../src/proxmox';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import type { ProvisioningActivities } from '../provisioning-contract';

/** Bridges and VNets a NIC may attach to, as /nodes/{node}/network types them. */
const NIC_NETWORK_TYPES = new Set(['bridge', 'OVSBridge', 'vnet']);

type Storages = Awaited<ReturnType<ProxmoxClient['nodes']['storages']>>;

/** Reads through the Proxmox API whether the node has what a VM needs, and lists every problem. */
export function createPreflightActivities(deps: ActivityDeps): Pick<ProvisioningActivities, 'preflightVm'> {
  const { pve } = clientsOf(deps);
  return {
    async preflightVm({ node, storages, networks, iso }) {
      const client = pve();
      const problems: string[] = [];
      const nodes = await client.nodes.list();
      const found = nodes.find((n) => n.node === node);
      if (!found)
        return { problems: [`node ${node} is not in the cluster (nodes: ${nodes.map((n) => n.node).join(', ')})`] };
      if (found.status !== 'online') return { problems: [`node ${node} is ${found.status}, not online`] };

      const available = await client.nodes.storages(node);
      for (const id of storages) {
        const problem = storageProblem(available, node, id, 'images');
        if (problem) problems.push(problem);
      }

      if (networks.length > 0) {
        const [ifaces, vnets] = await Promise.all([client.nodes.networks(node), client.sdn.vnets()]);
        for (const net of networks) {
          const ok =
            ifaces.some((i) => i.iface === net && NIC_NETWORK_TYPES.has(i.type)) || vnets.some((v) => v.vnet === net);
          if (!ok) problems.push(`network ${net} is neither a bridge on ${node} nor an SDN VNet`);
        }
      }

      if (iso) {
        const isoStorage = iso.split(':')[0]!;
        const problem = storageProblem(available, node, isoStorage, 'iso');
        if (problem) problems.push(`ISO ${iso}: ${problem}`);
        else if (!(await client.storage.find(node, iso, 'iso')))
          problems.push(`ISO ${iso} is not in storage ${isoStorage} on ${node}`);
      }
      return { problems };
    },
  };
}

/** Why storage `id` on `node` cannot hold `content`, if it cannot. */
function storageProblem(available: Storages, node: string, id: string, content: string): string | undefined {
  const s = available.find((x) => x.storage === id);
  if (!s || !s.enabled)
    return `storage ${id} is not available on ${node} (it has ${available.map((x) => x.storage).join(', ')})`;
  if (!s.active) return `storage ${id} on ${node} is not active`;
  if (!s.content.includes(content))
    return `storage ${id} on ${node} does not hold ${content} (content: ${s.content.join(', ')})`;
  return undefined;
}
