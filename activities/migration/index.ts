import type { ActivityDeps } from '../deps';
import type { MigrationActivities } from '../migration-contract';
import { createConversionActivities } from './conversion';
import { createHaActivities } from './ha';
import { createImportDiskActivities } from './import-disk';
import { createLiveImportActivities } from './live-import';
import { createOverlayDiskActivities } from './overlay-disks';
import { createProxmoxMigrationActivities } from './proxmox';
import { createMigrationSettingsActivities } from './settings';
import { createVsphereDiscoveryActivities } from './vsphere-discovery';
import { createVspherePowerActivities } from './vsphere-power';
import { createVsphereRelocationActivities } from './vsphere-relocation';

/**
 * The migration activities: thin adapters from the workflows' calls to the vSphere and Proxmox clients.
 * Every one checks, then acts, on a stable identity (moid, VMID, slot, VNet id), so a retry or a rerun
 * does not do the work twice.
 */
export function createMigrationActivities(deps: ActivityDeps): MigrationActivities {
  return {
    ...createMigrationSettingsActivities(deps),
    ...createVsphereDiscoveryActivities(deps),
    ...createVsphereRelocationActivities(deps),
    ...createVspherePowerActivities(deps),
    ...createProxmoxMigrationActivities(deps),
    ...createImportDiskActivities(deps),
    ...createLiveImportActivities(deps),
    ...createOverlayDiskActivities(deps),
    ...createHaActivities(deps),
    ...createConversionActivities(deps),
  };
}
