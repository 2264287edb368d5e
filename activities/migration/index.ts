import type { ActivityDeps } from '../deps';
import type { MigrationActivities } from '../migration-contract';
import { createConversionActivities } from './conversion';
import { createDiskImportActivities } from './disk-imports';
import { createHaActivities } from './ha';
import { createProxmoxMigrationActivities } from './proxmox';
import { createMigrationSettingsActivities } from './settings';
import { createVsphereMigrationActivities } from './vsphere';

/**
 * The migration activities: thin adapters from the workflows' calls to the vSphere and Proxmox clients.
 * Every one checks, then acts, on a stable identity (moid, VMID, slot, VNet id), so a retry or a rerun
 * does not do the work twice.
 */
export function createMigrationActivities(deps: ActivityDeps): MigrationActivities {
  return {
    ...createMigrationSettingsActivities(deps),
    ...createVsphereMigrationActivities(deps),
    ...createProxmoxMigrationActivities(deps),
    ...createDiskImportActivities(deps),
    ...createHaActivities(deps),
    ...createConversionActivities(deps),
  };
}
