import type { MigrationSettings } from '../migration/settings';

/** Where placement put one VM, as the wave and the VM's status keep it. */
export interface VmPlacement {
  node: string;
  disks: Array<{ label: string; storage: string }>;
  /** The node's memory commitment once this VM is there, as placement counted it. */
  memory?: { committedAfterBytes: number; limitBytes: number; memoryBytes: number };
}

/**
 * The settings a VM's workflow runs with: the wave's, with the VM's placed node and its disks'
 * storages. `targetStorage` becomes the first disk's storage (EFI disk, import permit); each disk
 * is imported onto its own (diskStorage).
 */
export function placedVmSettings(settings: MigrationSettings, placement: VmPlacement | undefined): MigrationSettings {
  if (!placement) return settings;
  const first = placement.disks[0]?.storage ?? settings.targetStorage;
  return {
    ...settings,
    node: placement.node,
    targetStorage: first,
    diskStorages: Object.fromEntries(placement.disks.map((d) => [d.label, d.storage])),
  };
}

/** The storage one disk (by its VMware label) is imported onto. */
export function diskStorage(
  settings: Pick<MigrationSettings, 'targetStorage' | 'diskStorages'>,
  label: string,
): string {
  return settings.diskStorages?.[label] ?? settings.targetStorage;
}

/** Where a VM's workflow places it, from its settings: its node, each disk (by label) on its storage. */
export function placementOfSettings(
  settings: Pick<MigrationSettings, 'node' | 'targetStorage' | 'diskStorages'>,
  labels: readonly string[],
): VmPlacement {
  return { node: settings.node, disks: labels.map((label) => ({ label, storage: diskStorage(settings, label) })) };
}
