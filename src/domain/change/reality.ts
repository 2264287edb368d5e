import { readVmConfig, type VmConfigView } from './vm-config';

/**
 * A Proxmox VM as the change plan reads it, typed input gathered by an activity (no I/O here): its
 * config as it runs now, what waits in `pending`, its power state and the storages its node has.
 */

/** One row of `GET /nodes/{node}/qemu/{vmid}/pending` (API2/Qemu.pm vm_pending). */
export interface PendingRow {
  key: string;
  /** The current value (absent for a key only pending). */
  value?: string | number;
  /** The value waiting for the next start. */
  pending?: string | number;
  /** A pending deletion: 1, or 2 = forced (the volume is removed, not kept as unusedN). */
  delete?: number;
}

/** A pending change of one key: a new value, or a deletion. */
export interface PendingEntry {
  key: string;
  value?: string;
  delete?: 'delete' | 'force';
}

/**
 * A storage as the VM's node lists it (`GET /nodes/{node}/storage`, every storage, not filtered by
 * content: a disk's own storage must be there for it to grow).
 */
export interface StorageFacts {
  id: string;
  /** The nodes that have it (storage.cfg `nodes`); absent: listed for the VM's node, so it has it. */
  nodes?: string[];
  /** Content types: `images`, `iso`, `import`, … */
  content: string[];
  /** Enabled and active on the node. */
  active: boolean;
  /** Free bytes; absent when the node did not say. */
  availBytes?: number;
}

export interface VmReality {
  vmid: number;
  node: string;
  /** A paused VM counts as running: its QEMU process takes hotplug. */
  power: 'running' | 'stopped';
  /** The config as it is now (without pending values; `GET …/config?current=1`, or the rows' `value`). */
  config: Record<string, string>;
  /** What waits for the next start. */
  pending: PendingEntry[];
  storages: StorageFacts[];
  /** The config digest read with it (a write guarded by it fails if the VM changed since). */
  digest?: string;
}

/**
 * The current config, the pending entries and the digest from the rows of `GET …/pending` (one read
 * gives all three: the digest comes as a row of its own, GuestHelpers.pm config_with_pending_array).
 */
export function configAndPending(rows: readonly PendingRow[]): Pick<VmReality, 'config' | 'pending' | 'digest'> {
  const config: Record<string, string> = {};
  const pending: PendingEntry[] = [];
  let digest: string | undefined;
  for (const row of rows) {
    if (row.key === 'digest') {
      digest = row.value === undefined ? undefined : String(row.value);
      continue;
    }
    if (row.value !== undefined) config[row.key] = String(row.value);
    if (row.delete) pending.push({ key: row.key, delete: row.delete === 2 ? 'force' : 'delete' });
    else if (row.pending !== undefined) pending.push({ key: row.key, value: String(row.pending) });
  }
  return { config, pending, ...(digest !== undefined ? { digest } : {}) };
}

/** The config the VM will have after its next start: the current one with the pending values and deletions applied. */
export function effectiveConfig(reality: Pick<VmReality, 'config' | 'pending'>): Record<string, string> {
  const config = { ...reality.config };
  for (const entry of reality.pending) {
    if (entry.delete) delete config[entry.key];
    else if (entry.value !== undefined) config[entry.key] = entry.value;
  }
  return config;
}

/** Both views of a VM: as it runs now, and as it will after the next start. */
export interface RealityViews {
  current: VmConfigView;
  effective: VmConfigView;
}

export function realityViews(reality: Pick<VmReality, 'config' | 'pending'>): RealityViews {
  return { current: readVmConfig(reality.config), effective: readVmConfig(effectiveConfig(reality)) };
}

/** The keys that have a pending value or deletion. */
export function pendingKeys(reality: Pick<VmReality, 'pending'>): Set<string> {
  return new Set(reality.pending.map((p) => p.key));
}
