import type { NetboxClient } from '../src/netbox/client';
import { idOnly } from '../src/netbox/schemas';
import { SAMPLE_ISO } from './proxmox-sim/sample-cluster';

/** The lab guest image as an importable volume on pve1 (lab/provisioning-lab.ts puts it there). */
export const LAB_GUEST_IMAGE_VOLUME = 'local:import/ferry-guest.raw';

/** The lab's NetBox content: where provisioning starts from. */
export const LAB_NETBOX = {
  site: { name: 'Lab', slug: 'lab' },
  clusterType: { name: 'Proxmox VE', slug: 'proxmox-ve' },
  cluster: 'pve-lab',
  prefix: '192.0.2.0/24',
  tag: { name: 'ferry', slug: 'ferry' },
  vms: [
    // lab-web1 boots the lab's guest image (LAB_GUEST_IMAGE_VOLUME, see lab/provisioning-lab.ts): one real boot, not three.
    {
      name: 'lab-web1',
      vcpus: 2,
      memory: 2048,
      disk: 20480,
      fields: {
        ferry_vmid: 9001,
        ferry_vlan: 20,
        ferry_owner: 'web team',
        ferry_image: LAB_GUEST_IMAGE_VOLUME,
        ferry_iso: null,
      },
    },
    {
      name: 'lab-web2',
      vcpus: 2,
      memory: 2048,
      disk: 20480,
      fields: { ferry_vmid: 9002, ferry_vlan: 20, ferry_owner: 'web team' },
    },
    {
      name: 'lab-db1',
      vcpus: 4,
      memory: 8192,
      disk: 102400,
      fields: { ferry_vmid: 9003, ferry_vlan: 30, ferry_owner: 'data team' },
    },
  ],
  /** Custom fields every lab VM shares. */
  common: {
    ferry_node: 'pve1',
    ferry_storage: 'local-lvm',
    ferry_network: 'vmbr0',
    ferry_iso: `local:iso/${SAMPLE_ISO}`,
  },
} as const;

export interface SeededNetbox {
  siteId: number;
  clusterId: number;
  prefixId: number;
  vmIds: Record<string, number>;
}

/** An object found by `lookup`, else created from `body`. */
async function ensure(
  client: NetboxClient,
  path: string,
  lookup: Record<string, string | number>,
  body: Record<string, unknown>,
): Promise<number> {
  const [found] = await client.http.list(path, lookup, idOnly);
  if (found) return found.id;
  return (await client.http.request('POST', path, { schema: idOnly, body })).data.id;
}

/**
 * Seeds a NetBox with the lab's site, Proxmox cluster, VM prefix, ferry's custom fields and a few VMs
 * in status `planned`. Idempotent: run it again and it finds what it made.
 */
export async function seedLabNetbox(client: NetboxClient): Promise<SeededNetbox> {
  const { site, clusterType, cluster, prefix, tag } = LAB_NETBOX;
  await client.ensureCustomFields();
  const siteId = await ensure(client, 'api/dcim/sites/', { slug: site.slug }, { ...site, status: 'active' });
  const typeId = await ensure(
    client,
    'api/virtualization/cluster-types/',
    { slug: clusterType.slug },
    { ...clusterType },
  );
  const clusterId = await ensure(
    client,
    'api/virtualization/clusters/',
    { name: cluster },
    {
      name: cluster,
      type: typeId,
      status: 'active',
      scope_type: 'dcim.site',
      scope_id: siteId,
    },
  );
  const prefixId = await ensure(
    client,
    'api/ipam/prefixes/',
    { prefix },
    { prefix, status: 'active', description: 'lab VM network' },
  );
  await ensure(client, 'api/extras/tags/', { slug: tag.slug }, { ...tag });
  const vmIds: Record<string, number> = {};
  for (const vm of LAB_NETBOX.vms) {
    vmIds[vm.name] = await ensure(
      client,
      'api/virtualization/virtual-machines/',
      { name: vm.name, cluster_id: clusterId },
      {
        name: vm.name,
        status: 'planned',
        cluster: clusterId,
        site: siteId,
        vcpus: vm.vcpus,
        memory: vm.memory,
        disk: vm.disk,
        tags: [{ slug: tag.slug }],
        custom_fields: { ...LAB_NETBOX.common, ...vm.fields },
      },
    );
  }
  return { siteId, clusterId, prefixId, vmIds };
}
