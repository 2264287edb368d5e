import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { nfsMigrationDir } from '../shared-paths';
import type { SimIdentity } from './cluster';
import { defaultNodeHardware, type NodeHardware } from './node-hardware';
import { newTokenSecret, type SimulatorOptions } from './server';
import type { Flavour } from './schema/subset';

/**
 * The sample cluster of the lab and the tests: three nodes of different sizes (SAMPLE_HARDWARE);
 * storages `local` (dir, per node: ISOs, images, imports; the host's file system), `local-lvm` (thin,
 * per node, a pool of its own size per node: SAMPLE_THIN_POOLS) and `nfs-migration` (NFS, shared, the folder the
 * vSphere lab serves as a datastore); bridges vmbr0/vmbr1; an ISO; one LXC container (so callers must
 * filter /cluster/resources to qemu); a pool `migrated`.
 */
export const SAMPLE_NODES = ['pve1', 'pve2', 'pve3'];
export const SAMPLE_ISO = 'debian-12.8.0-amd64-netinst.iso';
export const SAMPLE_POOL = 'migrated';

const GiB = 1024 ** 3;

/** pve1: 64 GiB, 16 threads; pve2: 32 GiB, 8 threads; pve3: 128 GiB, 32 threads. */
export const SAMPLE_HARDWARE: Record<string, NodeHardware> = {
  pve1: defaultNodeHardware(0),
  pve2: { ...defaultNodeHardware(1), memoryBytes: 32 * GiB, cores: 4 },
  pve3: { ...defaultNodeHardware(2), memoryBytes: 128 * GiB, sockets: 2 },
};

/** Size of each node's thin pool `local-lvm` (its used bytes are what its volumes take on disk). */
export const SAMPLE_THIN_POOLS: Record<string, number> = { pve1: 200 * GiB, pve2: 100 * GiB, pve3: 400 * GiB };

export interface SampleCredentials {
  /** The automation token ferry uses: `ferry@pve!ferry`. */
  tokenId: string;
  tokenUser: string;
  tokenName: string;
  tokenSecret: string;
  /** A read-only token (PVEAuditor): `auditor@pve!ro`. */
  auditTokenId: string;
  auditTokenSecret: string;
  rootPassword: string;
}

export function sampleCredentials(): SampleCredentials {
  return {
    tokenId: 'ferry@pve!ferry',
    tokenUser: 'ferry@pve',
    tokenName: 'ferry',
    tokenSecret: newTokenSecret(),
    auditTokenId: 'auditor@pve!ro',
    auditTokenSecret: newTokenSecret(),
    rootPassword: newTokenSecret(),
  };
}

export function sampleCluster(stateDir: string, flavour: Flavour, credentials: SampleCredentials): SimulatorOptions {
  const storageRoot = path.join(stateDir, 'proxmox', 'storage');
  const identities: SimIdentity[] = [
    { id: 'root@pam', role: 'admin', secret: credentials.rootPassword },
    { id: credentials.tokenUser, role: 'admin', secret: newTokenSecret() },
    { id: credentials.tokenId, role: 'admin', secret: credentials.tokenSecret },
    { id: 'auditor@pve', role: 'audit', secret: newTokenSecret() },
    { id: credentials.auditTokenId, role: 'audit', secret: credentials.auditTokenSecret },
  ];
  const options: SimulatorOptions = {
    flavour,
    stateDir: path.join(stateDir, 'proxmox'),
    nodes: SAMPLE_NODES,
    bridges: ['vmbr0', 'vmbr1'],
    identities,
    // Three hosts of different sizes (placement must tell them apart), on the documentation network 192.0.2.0/24.
    hardware: SAMPLE_HARDWARE,
    containers: [
      { vmid: 900, node: 'pve1', name: 'ct-dns', memoryMiB: 512, swapMiB: 512, cores: 1, rootfsBytes: 8 * 1024 ** 3 },
    ],
    pools: { [SAMPLE_POOL]: { comment: 'VMs migrated from vSphere' } },
    storages: [
      {
        id: 'local',
        type: 'dir',
        content: ['iso', 'vztmpl', 'backup', 'images', 'import'],
        path: path.join(storageRoot, 'local'),
      },
      {
        id: 'local-lvm',
        type: 'lvmthin',
        content: ['images', 'rootdir'],
        path: path.join(storageRoot, 'local-lvm'),
        quotaBytes: SAMPLE_THIN_POOLS,
      },
      {
        id: 'nfs-migration',
        type: 'nfs',
        shared: true,
        content: ['images', 'import', 'iso'],
        path: nfsMigrationDir(stateDir),
      },
    ],
  };
  for (const node of SAMPLE_NODES) {
    const isoDir = path.join(storageRoot, 'local', node, 'template', 'iso');
    mkdirSync(isoDir, { recursive: true });
    writeFileSync(path.join(isoDir, SAMPLE_ISO), Buffer.alloc(64 * 1024, 0x2e));
  }
  return options;
}
