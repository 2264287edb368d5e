import type { ActivityDeps } from './deps';
import type { TeardownActivities } from './provisioning-contract';
import { createDnsCleanupActivities } from './teardown/dns';
import { createKnownHostsCleanupActivities } from './teardown/known-hosts';
import { createNetboxCleanupActivities } from './teardown/netbox';
import { createPreviousRunActivities } from './teardown/previous-run';
import { createTargetActivities } from './teardown/target';

/**
 * The teardown activities, one file per system under activities/teardown/: read what a VM has
 * (Proxmox, NetBox, DNS), stop and delete it, and undo each record. Every cleanup looks before it
 * removes and says what it found, so a rerun reports `already-absent` for what an earlier run finished.
 */
export function createTeardownActivities(deps: ActivityDeps): TeardownActivities {
  return {
    ...createTargetActivities(deps),
    ...createPreviousRunActivities(),
    ...createDnsCleanupActivities(deps),
    ...createKnownHostsCleanupActivities(deps),
    ...createNetboxCleanupActivities(deps),
  };
}
