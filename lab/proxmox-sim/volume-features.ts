import type { Volume } from './storage';

/**
 * pve-storage's volume_has_feature for the simulator's storage types: which of a volume's states
 * (`current`, a template's `base`, a `snap`shot) can be snapshotted, cloned (linked), made a template
 * or copied (full clone). A directory or NFS storage snapshots only qcow2 files (internal snapshots); an
 * LVM-thin pool snapshots any current volume and clones linked from a base volume or a snapshot.
 */
export type VolumeFeature = 'snapshot' | 'clone' | 'template' | 'copy';

type FeatureTable = Record<VolumeFeature, Partial<Record<'current' | 'base' | 'snap', readonly string[]>>>;

const ANY = ['raw', 'qcow2', 'vmdk'] as const;

/** Plugin.pm's table (dir, nfs): per state, the formats that have the feature. */
const FILE_STORAGE: FeatureTable = {
  snapshot: { current: ['qcow2'], snap: ['qcow2'] },
  clone: { base: ANY },
  template: { current: ANY },
  copy: { base: ANY, current: ANY, snap: ['qcow2'] },
};

/** LvmThinPlugin.pm's table (any format: thin volumes are raw). */
const THIN_POOL: FeatureTable = {
  snapshot: { current: ANY },
  clone: { base: ANY, snap: ANY },
  template: { current: ANY },
  copy: { base: ANY, current: ANY, snap: ANY },
};

export function volumeHasFeature(feature: VolumeFeature, volume: Volume, snapname?: string): boolean {
  if (volume.vtype !== 'images') return false;
  const table = volume.storage.type === 'lvmthin' ? THIN_POOL : FILE_STORAGE;
  const state = snapname ? 'snap' : volume.isBase ? 'base' : 'current';
  return table[feature][state]?.includes(volume.format) ?? false;
}
