import type { ActivityDeps } from '../deps';
import type { PveVmActivities } from '../pve-vm-contract';
import { createPveVmChanges } from './changes';
import { createGuestChecks } from './guest-checks';
import { createPveVmPower } from './power';
import { createPveVmReads } from './reads';
import { createPveVmWrites } from './writes';

/** The generic Proxmox VM activities (activities/pve-vm-contract.ts), on the Proxmox client. */
export function createPveVmActivities(deps: ActivityDeps): PveVmActivities {
  return {
    ...createPveVmReads(deps),
    ...createPveVmPower(deps),
    ...createPveVmWrites(deps),
    ...createGuestChecks(deps),
    ...createPveVmChanges(deps),
  };
}
