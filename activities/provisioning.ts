import type { ActivityDeps } from './deps';
import { createDnsActivities } from './provisioning/dns';
import { createNetboxActivities } from './provisioning/netbox';
import { createPreflightActivities } from './provisioning/preflight';
import { createProxmoxActivities } from './provisioning/proxmox';
import { createSettingsActivities } from './provisioning/settings';
import { createVmidAllocatorActivities } from './provisioning/vmid-allocator';
import type { ProvisioningActivities } from './provisioning-contract';

/**
 * The provisioning activities: thin adapters from the workflows' calls to the Proxmox, NetBox and DNS
 * clients, one file per system under activities/provisioning/. Each checks, then acts, on a stable
 * identity (VMID, slot, NetBox id, interface name), so a retry or a rerun finds its earlier work
 * instead of doing it twice.
 */
export function createProvisioningActivities(deps: ActivityDeps): ProvisioningActivities {
  return {
    ...createSettingsActivities(deps),
    ...createVmidAllocatorActivities(deps),
    ...createPreflightActivities(deps),
    ...createProxmoxActivities(deps),
    ...createNetboxActivities(deps),
    ...createDnsActivities(deps),
  };
}
