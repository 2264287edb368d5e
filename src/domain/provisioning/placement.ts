import { placeProvisioning, type ProvisionPlacementVm } from '../placement/provision';
import type { Placement, PlacementNode, PlacementRefusalCode, PlacementStorage } from '../placement/types';
import { GIB, MIB } from '../placement/units';
import type { ProvisionSpec } from './spec';

/** A spec once its node is known: named by the record, the spec or provisioning.node, or placed. */
export type PlacedSpec = ProvisionSpec & { node: string };

/**
 * Memory a named node may promise, as a multiple of its physical memory: a person chose that node,
 * so only its storages are checked (the disks must fit), never its memory.
 */
const NAMED_NODE_MEMORY_COMMIT = 1_000_000;

/** The spec's key in a placement batch: its NetBox id, else its name (neither has glob characters). */
export function placementKey(spec: Pick<ProvisionSpec, 'name' | 'netboxId'>): string {
  return spec.netboxId !== undefined ? `netbox-${spec.netboxId}` : `spec-${spec.name}`;
}

/** What placement sees of a spec: memory, vCPUs, each disk's size on the storage it names. */
export function placementVmOf(spec: ProvisionSpec): ProvisionPlacementVm {
  return {
    key: placementKey(spec),
    name: spec.name,
    ...(spec.node !== undefined ? { node: spec.node } : {}),
    memoryBytes: spec.memoryMiB * MIB,
    cpus: spec.cores * spec.sockets,
    disks: spec.disks.map((d) => ({ slot: d.slot, storage: d.storage, sizeBytes: d.sizeGiB * GIB })),
  };
}

export interface ProvisionRoom {
  nodes: PlacementNode[];
  storages: PlacementStorage[];
}

/**
 * Places a batch of specs together (one accounting of room, the same result for the same facts).
 * Specs that name a node keep it and have their disks checked; the others go where there is room.
 */
export function placeSpecs(room: ProvisionRoom, specs: readonly ProvisionSpec[]): Placement {
  const named = specs.some((s) => s.node !== undefined);
  const unnamed = specs.some((s) => s.node === undefined);
  // One batch with both kinds: memory is checked for all (the unnamed ones must not be crowded out).
  const maxMemoryCommit = named && !unnamed ? NAMED_NODE_MEMORY_COMMIT : undefined;
  return placeProvisioning({
    ...room,
    vms: specs.map(placementVmOf),
    ...(maxMemoryCommit !== undefined ? { maxMemoryCommit } : {}),
  });
}

/** The spec's outcome in a placement: its node, or why it was refused (with the numbers). */
export type SpecPlacement = { ok: true; node: string } | { ok: false; reason: string };

/** Refusals the preflight stage makes too, listing them with every other problem of the node. */
const PREFLIGHT_CODES: ReadonlySet<PlacementRefusalCode> = new Set([
  'placement-storage-unknown',
  'placement-storage-content',
  'placement-storage-unreachable',
]);

/**
 * The spec's outcome in a placement. A named node whose only refusals are missing or unfit storages
 * is kept: the preflight refuses it there with every problem (storage, network, ISO) at once.
 */
export function specPlacement(placement: Placement, spec: ProvisionSpec): SpecPlacement {
  const key = placementKey(spec);
  const placed = placement.placed.find((p) => p.moid === key);
  if (placed) return { ok: true, node: placed.node };
  const refused = placement.refused.find((r) => r.moid === key);
  if (spec.node !== undefined && refused && refused.refusals.every((r) => PREFLIGHT_CODES.has(r.code)))
    return { ok: true, node: spec.node };
  const reasons = refused?.refusals.map((r) => r.reason) ?? placement.waveRefusals.map((r) => r.reason);
  return { ok: false, reason: reasons.length > 0 ? reasons.join('; ') : `${spec.name} was not placed` };
}
