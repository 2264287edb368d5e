import type { ActivityDeps } from './deps';
import { createDnsActivities } from './provisioning/dns';
import { createNetboxAddressActivities } from './provisioning/netbox-addressing';
import { createNetboxReadActivities } from './provisioning/netbox-reads';
import { createNetboxVmWriteActivities } from './provisioning/netbox-vm-writes';
import { createPreflightActivities } from './provisioning/preflight';
import { createVmConfigActivities } from './provisioning/proxmox-config';
import { createVmDiskActivities } from './provisioning/proxmox-disks';
import { createVmNicActivities } from './provisioning/proxmox-nics';
import { createBareVmActivities } from './provisioning/proxmox-vm';
import { createSettingsActivities } from './provisioning/settings';
import { createVmidAllocatorActivities } from './provisioning/vmid-allocator';
import type { ProvisioningActivities } from './provisioning-contract';

/**
 * The provisioning activities: thin adapters from the workflows' calls to the Proxmox, NetBox and DNS
 * clients, one file per system and concern under activities/provisioning/. Each checks, then acts, on a stable
 * identity (VMID, slot, NetBox id, interface name), so a retry or a rerun finds its earlier work
 * instead of doing it twice.
 */
export function createProvisioningActivities(deps: ActivityDeps): ProvisioningActivities {
  return {
    ...createSettingsActivities(deps),
    ...createVmidAllocatorActivities(deps),
    ...createPreflightActivities(deps),
    ...createBareVmActivities(deps),
    ...createVmDiskActivities(deps),
    ...createVmNicActivities(deps),
    ...createVmConfigActivities(deps),
    ...createNetboxReadActivities(deps),
    ...createNetboxVmWriteActivities(deps),
    ...createNetboxAddressActivities(deps),
    ...createDnsActivities(deps),
  };
}
