import { formatBytes, formatRatio, needsAndFree } from './units';
import type { PlacementNode, PlacementRefusal, PlacementStorage } from './types';

/** The memory a node may have committed: physical memory × ratio, rounded down. */
export function memoryLimit(node: Pick<PlacementNode, 'memoryBytes'>, ratio: number): number {
  return Math.floor(node.memoryBytes * ratio);
}

/**
 * The memory refusal, or undefined when `need` fits: committed + need ≤ limit (an exact fit fits).
 * `byWave` is the part of `committed` this wave's own VMs added, named so the numbers add up.
 */
export function memoryRefusal(
  subject: string,
  node: Pick<PlacementNode, 'name' | 'memoryBytes'>,
  ratio: number,
  committed: number,
  need: number,
  byWave = 0,
): PlacementRefusal | undefined {
  const limit = memoryLimit(node, ratio);
  if (committed + need <= limit) return undefined;
  const room = Math.max(0, limit - committed);
  const resource = `memory on ${node.name}`;
  const wave = byWave > 0 ? `, ${formatBytes(byWave, 'up')} of it by this wave` : '';
  return {
    code: 'placement-memory',
    subject,
    resource,
    need,
    room,
    reason: `${resource}: ${needsAndFree(need, room)} (limit ${formatBytes(limit, 'down')} = ${formatRatio(ratio)} × ${formatBytes(node.memoryBytes, 'down')}; ${formatBytes(committed, 'up')} committed${wave})`,
  };
}

export function cpuRefusal(
  subject: string,
  node: Pick<PlacementNode, 'name' | 'cpus'>,
  cpus: number,
): PlacementRefusal | undefined {
  if (cpus <= node.cpus) return undefined;
  const resource = `CPUs on ${node.name}`;
  return {
    code: 'placement-cpu',
    subject,
    resource,
    need: cpus,
    room: node.cpus,
    reason: `${resource}: ${subject} has ${cpus} vCPUs, ${node.name} only ${node.cpus} (Proxmox refuses a VM with more vCPUs than its node)`,
  };
}

/** Where an import's bytes are counted: once for shared storage, per node for local storage. */
export function roomKey(storage: Pick<PlacementStorage, 'name' | 'shared'>, node: string): string {
  return storage.shared ? storage.name : `${storage.name} on ${node}`;
}

/**
 * The bytes free on a storage as seen from a node, or undefined when the node does not reach it.
 * Shared storage counts the smallest room any node reports.
 */
export function storageAvail(storage: PlacementStorage, node: string): number | undefined {
  const entry = storage.nodes.find((n) => n.node === node);
  if (!entry) return undefined;
  if (!storage.shared) return entry.availBytes;
  return Math.min(...storage.nodes.map((n) => n.availBytes));
}

/** `nfs-images is not reachable from pve2 (it is on pve1, pve3)` and friends, or undefined when the disks fit. */
export function storageRefusal(
  subject: string,
  storage: PlacementStorage,
  node: string,
  need: number,
  taken: number,
  labels: readonly string[],
  byWave = taken,
): PlacementRefusal | undefined {
  const avail = storageAvail(storage, node);
  if (avail === undefined) {
    const where = storage.nodes.map((n) => n.node).sort();
    return {
      code: 'placement-storage-unreachable',
      subject,
      resource: storage.name,
      reason: `${storage.name} (for ${labels.join(', ')}) is not reachable from ${node}: it is on ${where.join(', ') || 'no node'}`,
    };
  }
  const room = Math.max(0, avail - taken);
  if (need <= room) return undefined;
  const resource = storage.shared ? `${storage.name} (shared)` : `${storage.name} on ${node}`;
  const wave = byWave > 0 ? ` after ${formatBytes(byWave, 'up')} placed by this wave` : '';
  return {
    code: 'placement-storage-room',
    subject,
    resource,
    need,
    room,
    reason: `${resource}: ${needsAndFree(need, room)}${wave} (${labels.join(', ')})`,
  };
}

/** A storage the disks are mapped to must exist and hold VM images. */
export function storageKindRefusal(
  subject: string,
  name: string,
  storage: PlacementStorage | undefined,
  labels: readonly string[],
  by: readonly string[],
): PlacementRefusal | undefined {
  if (!storage) {
    return {
      code: 'placement-storage-unknown',
      subject,
      resource: name,
      reason: `${labels.join(', ')} would be imported onto storage ${name} (${by.join(', ')}), which the cluster does not have`,
    };
  }
  if (!storage.content.includes('images')) {
    return {
      code: 'placement-storage-content',
      subject,
      resource: name,
      reason: `storage ${name} does not hold VM disks (content: ${storage.content.join(', ') || 'none'}); add "images" or map ${labels.join(', ')} elsewhere`,
    };
  }
  return undefined;
}
