import type {
  PlacementDisk,
  PlacementInput,
  PlacementNode,
  PlacementStorage,
  PlacementVm,
} from '../../../../src/domain/placement';

export const GiB = 1024 ** 3;

export function node(name: string, overrides: Partial<PlacementNode> = {}): PlacementNode {
  return { name, online: true, memoryBytes: 64 * GiB, committedBytes: 0, cpus: 32, ...overrides };
}

/** Local storage with the given free GiB on each node. */
export function local(
  name: string,
  freeGiB: Record<string, number>,
  content = ['images', 'rootdir'],
): PlacementStorage {
  return {
    name,
    shared: false,
    content,
    nodes: Object.entries(freeGiB).map(([n, free]) => ({ node: n, totalBytes: 1000 * GiB, availBytes: free * GiB })),
  };
}

export function shared(name: string, nodes: string[], freeGiB: number, content = ['images']): PlacementStorage {
  return {
    name,
    shared: true,
    content,
    nodes: nodes.map((n) => ({ node: n, totalBytes: 2000 * GiB, availBytes: freeGiB * GiB })),
  };
}

export function disk(
  label: string,
  sizeGiB: number,
  datastore = 'vsanDatastore',
  overrides: Partial<PlacementDisk> = {},
): PlacementDisk {
  return { label, datastore, capacityBytes: sizeGiB * GiB, ...overrides };
}

export function vm(name: string, overrides: Partial<PlacementVm> = {}): PlacementVm {
  return {
    moid: `vm-${name}`,
    name,
    folder: '/DC0/vm',
    tags: [],
    memoryBytes: 4 * GiB,
    cpus: 2,
    disks: [disk('Hard disk 1', 20)],
    ...overrides,
  };
}

/** Three online 64 GiB nodes, local-lvm with 500 GiB free on each, shared nfs-images with 1000 GiB. */
export function cluster(
  vms: PlacementVm[],
  overrides: Partial<PlacementInput> = {},
  settings: Partial<PlacementInput['settings']> = {},
): PlacementInput {
  return {
    nodes: [node('pve1'), node('pve2'), node('pve3')],
    storages: [
      local('local-lvm', { pve1: 500, pve2: 500, pve3: 500 }),
      shared('nfs-images', ['pve1', 'pve2', 'pve3'], 1000),
    ],
    vms,
    ...overrides,
    settings: { targetStorage: 'local-lvm', ...settings },
  };
}
