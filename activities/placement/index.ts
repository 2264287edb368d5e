import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import type { PlacementActivities, ShellMoveActivities } from './contract';
import { createShellMoveActivities } from './shell-move';

export type { PlacementActivities, ShellMoveActivities } from './contract';

/** Placement's reads, on the Proxmox and vSphere clients. Reads only: safe to retry. */
export function createPlacementActivities(deps: ActivityDeps): PlacementActivities & ShellMoveActivities {
  const { pve, vsphere } = clientsOf(deps);
  return {
    ...createShellMoveActivities(deps),
    readClusterCapacity({ exclude }) {
      return pve().capacity.read(exclude);
    },

    async readDatastoreRoom({ datastore, nearVm }) {
      const { hostDatastores } = await vsphere().readVmDetail(nearVm);
      const found = hostDatastores.find((d) => d.name === datastore);
      if (!found || found.capacityBytes === undefined || found.freeBytes === undefined) return undefined;
      return { name: found.name, capacityBytes: found.capacityBytes, freeBytes: found.freeBytes };
    },

    async readVmTags({ tags }) {
      const carried: Record<string, string[]> = {};
      for (const tag of [...new Set(tags)].sort()) carried[tag] = (await vsphere().vmsTagged(tag)).sort();
      return carried;
    },
  };
}
