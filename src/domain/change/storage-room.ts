import { formatBytes } from '../placement/units';
import type { StorageFacts } from './reality';

/**
 * Whether a storage of the VM's node can take a disk ferry allocates on it (a new disk, a move's copy,
 * a disk's growth), counted over the whole plan so two disks cannot both claim the same free space.
 * qemu-server's own checks: move_vm_disk (PVE/API2/Qemu.pm) refuses a storage without `images`
 * content ("storage … does not support vm images") and a disabled one; allocation fails on a storage
 * the node does not have or without the room. ferry asks for room for the full size it requests (a
 * thin pool may need less).
 */
export class StorageRoom {
  private readonly claimed = new Map<string, number>();

  constructor(
    private readonly storages: readonly StorageFacts[],
    private readonly node: string,
  ) {}

  /** Claims `bytes` on the storage, or says why it cannot hold them (nothing claimed then). */
  claim(storage: string, bytes: number): string | undefined {
    const facts = this.storages.find((s) => s.id === storage);
    if (!facts || (facts.nodes && !facts.nodes.includes(this.node)))
      return `storage ${storage} does not exist on node ${this.node}`;
    if (!facts.content.includes('images')) return `storage ${storage} does not hold VM disks (no images content)`;
    if (!facts.active) return `storage ${storage} is not active on node ${this.node}`;
    const taken = this.claimed.get(storage) ?? 0;
    if (facts.availBytes !== undefined && taken + bytes > facts.availBytes) {
      const free = Math.max(0, facts.availBytes - taken);
      return `storage ${storage} cannot hold it: needs ${formatBytes(bytes, 'up')}, ${formatBytes(free, 'down')} free`;
    }
    this.claimed.set(storage, taken + bytes);
    return undefined;
  }
}
