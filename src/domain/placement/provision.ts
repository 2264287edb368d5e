import { placeWave } from './place';
import type { Placement, PlacementNode, PlacementRule, PlacementStorage, PlacementVm, StorageMapEntry } from './types';

/**
 * Provisioning's input to the same placement as a migration wave (placeWave): a batch of VMs to create,
 * each with the node its NetBox record or spec names (a pin) or none (placed over every online node),
 * and its disks on the storages they name. The batch is placed together, so two VMs of one batch are
 * never both counted into the same free room, and the result is the same for the same facts.
 */
export interface ProvisionPlacementVm {
  /** Unique in the batch, e.g. `netbox-42` (no glob characters). */
  key: string;
  name: string;
  /** The node the record or spec names; absent: placement picks one. */
  node?: string;
  memoryBytes: number;
  cpus: number;
  disks: Array<{ slot: string; storage: string; sizeBytes: number }>;
}

export interface ProvisionPlacementInput {
  nodes: PlacementNode[];
  storages: PlacementStorage[];
  vms: ProvisionPlacementVm[];
  /** `provisioning.placement.maxMemoryCommit` (default 1.0 of physical memory). */
  maxMemoryCommit?: number;
}

const GLOB = /[*?[\]{}]/;

/**
 * Places the batch: each VM is refused on its own (partial) with the numbers, never the whole batch.
 * In the result, `moid` is the VM's key and a disk's `label` its slot.
 */
export function placeProvisioning(input: ProvisionPlacementInput): Placement {
  for (const { key } of input.vms) {
    if (GLOB.test(key)) throw new Error(`provisioning placement: key ${key} has glob characters`);
  }
  const placementVms: PlacementVm[] = input.vms.map((toCreate) => ({
    moid: toCreate.key,
    name: toCreate.key,
    tags: [],
    memoryBytes: toCreate.memoryBytes,
    cpus: toCreate.cpus,
    // A disk's "datastore" is the storage it names: the storage map below sends it there.
    disks: toCreate.disks.map((d) => ({ label: d.slot, datastore: d.storage, capacityBytes: d.sizeBytes })),
  }));
  const rules: PlacementRule[] = input.vms
    .filter((toCreate) => toCreate.node !== undefined)
    .map((toCreate) => ({ match: { name: toCreate.key }, nodes: [toCreate.node!] }));
  const storages = [...new Set(input.vms.flatMap((toCreate) => toCreate.disks.map((d) => d.storage)))].sort();
  const storageMap: StorageMapEntry[] = storages
    .filter((s) => !GLOB.test(s))
    .map((s) => ({ datastore: s, storage: s }));
  const placement = placeWave({
    nodes: input.nodes,
    storages: input.storages,
    vms: placementVms,
    settings: {
      rules,
      storageMap,
      targetStorage: storages[0] ?? 'local-lvm',
      partial: true,
      ...(input.maxMemoryCommit !== undefined ? { maxMemoryCommit: input.maxMemoryCommit } : {}),
    },
  });
  const names = new Map(input.vms.map((toCreate) => [toCreate.key, toCreate.name]));
  const named = <T extends { moid: string; name: string }>(x: T): T => ({ ...x, name: names.get(x.moid) ?? x.name });
  const refused = placement.refused.map((r) => ({
    ...named(r),
    // Placement names the VM by its key in refusals; a person knows it by the record's name.
    refusals: r.refusals.map((x) => ({
      ...x,
      subject: x.subject === r.moid ? (names.get(r.moid) ?? r.moid) : x.subject,
      reason: x.reason.split(r.moid).join(names.get(r.moid) ?? r.moid),
    })),
  }));
  return {
    ...placement,
    placed: placement.placed.map(named),
    refused,
    nodes: placement.nodes.map((n) => ({ ...n, vms: n.vms.map((k) => names.get(k) ?? k) })),
  };
}
