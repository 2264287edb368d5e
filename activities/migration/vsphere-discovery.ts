import { ambiguousNameMessage, selectVms } from '../../src/domain/migration';
import { FerryError } from '../../src/errors';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import { beatWhile } from '../heartbeat';
import type { VsphereMigrationActivities } from '../migration-contract';

/** The vCenter's name in workflow ids and records (vsphere.name, else its host). */
export function vcenterName(deps: ActivityDeps): string {
  const vsphere = clientsOf(deps).vsphere();
  return vsphere.config.name ?? vsphere.config.host;
}

/** What the migration reads from vCenter: the wave's VMs, one VM with its portgroups, one VM's hardware again. */
export function createVsphereDiscoveryActivities(
  deps: ActivityDeps,
): Pick<VsphereMigrationActivities, 'discoverWave' | 'readVmForMigration' | 'rereadVm'> {
  const { vsphere } = clientsOf(deps);
  return {
    async discoverWave(selection) {
      const { inventory } = await beatWhile('discovery', vsphere().discover());
      const tagged = selection.tag
        ? new Set(await beatWhile('tagged VMs', vsphere().vmsTagged(selection.tag)))
        : undefined;
      const { vms, missingNames, ambiguousNames } = selectVms(inventory.vms, selection, tagged);
      if (missingNames.length > 0)
        throw new FerryError(`not found in vCenter ${inventory.vcenter}: ${missingNames.join(', ')}`, 'invalid');
      // A name two VMs share is refused before anything is built: migrating both would be a guess.
      if (ambiguousNames.length > 0)
        throw new FerryError(
          `ambiguous in vCenter ${inventory.vcenter}: ${ambiguousNames.map(ambiguousNameMessage).join('; ')}`,
          'invalid',
        );
      if (vms.length === 0)
        throw new FerryError(
          `the selection ${JSON.stringify(selection)} matches no VM in vCenter ${inventory.vcenter}`,
          'invalid',
        );
      return {
        vcenter: vcenterName(deps),
        vms,
        portgroups: inventory.portgroups,
        datastoresByVm: Object.fromEntries(vms.map((vm) => [vm.moid, vm.datastores ?? []])),
      };
    },

    async readVmForMigration({ moid }) {
      // This VM alone (a wave's VMs each read their own: the whole inventory per VM was quadratic).
      const { vm, portgroups } = await vsphere().readVmWithNetworks(moid);
      const keys = new Set(vm.nics.flatMap((n) => (n.backing.kind === 'dvportgroup' ? [n.backing.portgroupKey] : [])));
      return {
        vcenter: vcenterName(deps),
        vm,
        portgroups: portgroups.filter((pg) => keys.has(pg.key)),
        datastores: vm.datastores ?? [],
      };
    },

    async rereadVm({ moid }) {
      return vsphere().readVm(moid);
    },
  };
}
