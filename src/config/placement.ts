import { z } from 'zod';
import type { PlacementSettings } from '../domain/placement/types';

/**
 * `migration.nodes`, `migration.storageMap` and `migration.placement`: where a wave's VMs go (see
 * src/domain/placement). Without any of them every VM goes to `migration.node` and every disk to
 * `targetStorage`, unchecked, as before placement existed.
 */
const nodeName = z.string().regex(/^[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?$/, 'a Proxmox node name, e.g. pve1');

const selector = {
  /** Folder path glob, e.g. `/DC0/vm/apps` (subfolders included). */
  folder: z.string().min(1).optional(),
  /** vSphere tag, `category/name` or just `name`. */
  tag: z.string().min(1).optional(),
  /** VM name glob, e.g. `db-*`. */
  name: z.string().min(1).optional(),
};

const placementRule = z
  .object({ ...selector, node: nodeName.optional(), nodes: z.array(nodeName).min(1).optional() })
  .strict()
  .refine((r) => (r.node === undefined) !== (r.nodes === undefined), {
    message: 'give node (one node) or nodes (a group), not both and not neither',
  });

const antiAffinityGroup = z
  .object({ tag: selector.tag, name: selector.name })
  .strict()
  .refine((g) => g.tag !== undefined || g.name !== undefined, {
    message: 'an anti-affinity group needs a tag or a name pattern',
  });

export const storageMapEntry = z
  .object({ datastore: z.string().min(1).optional(), label: z.string().min(1).optional(), storage: z.string().min(1) })
  .strict()
  .refine((e) => e.datastore !== undefined || e.label !== undefined, {
    message: 'a storageMap entry needs a datastore or a disk label (globs)',
  });

export const placementSection = z
  .object({
    /** First match wins: folder/tag/name (all given must match) → a node or a node group. */
    rules: z.array(placementRule).default([]),
    /** Memory committed on a node (maxmem of its VMs) may reach this multiple of its physical memory. */
    maxMemoryCommit: z.number().positive('a ratio above 0, e.g. 1.0').max(10, 'at most 10').default(1.0),
    /** The wave's VMs a group selects go to different nodes. */
    antiAffinity: z.array(antiAffinityGroup).default([]),
    /** The share of the migration datastore's capacity kept free after every disk moved there (0–1). */
    migrationHeadroom: z.number().min(0, 'a fraction 0–1, e.g. 0.1').max(1, 'a fraction 0–1, e.g. 0.1').default(0.1),
    /** false: a wave that does not fit is refused whole; true: only the VMs that do not fit are refused. */
    partial: z.boolean().default(false),
  })
  .strict();

export const placementKeys = {
  /** The nodes a wave may use (default: only `node`). */
  nodes: z.array(nodeName).min(1, 'at least one node').optional(),
  /** Per disk, the first entry whose datastore and/or label glob matches picks the storage; else targetStorage. */
  storageMap: z.array(storageMapEntry).optional(),
  placement: placementSection.optional(),
};

type PlacementConfig = {
  node: string;
  targetStorage: string;
  nodes?: string[];
  storageMap?: Array<z.output<typeof storageMapEntry>>;
  placement?: z.output<typeof placementSection>;
};

/**
 * The config keys as the domain's placement settings, or undefined when none is set: placement and
 * its pre-flight are switched on by `migration.nodes`, `migration.storageMap` or `migration.placement`.
 */
export function placementSettings(m: PlacementConfig): PlacementSettings | undefined {
  if (m.nodes === undefined && m.storageMap === undefined && m.placement === undefined) return undefined;
  const p = placementSection.parse(m.placement ?? {});
  return {
    nodes: m.nodes ?? [m.node],
    rules: p.rules.map(({ node, nodes, ...match }) => ({ match, nodes: nodes ?? [node!] })),
    maxMemoryCommit: p.maxMemoryCommit,
    antiAffinity: p.antiAffinity,
    storageMap: m.storageMap ?? [],
    targetStorage: m.targetStorage,
    migrationHeadroom: p.migrationHeadroom,
    partial: p.partial,
  };
}
