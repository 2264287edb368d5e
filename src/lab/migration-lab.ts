import type { LabComponent } from './components';
import { nfsMigrationDir } from './shared-paths';
import { ESTATE } from './vcsim/estate';

/** Lab approvers (ferry.yaml migration.approvers). */
export const LAB_APPROVERS = ['lab-admin', 'alice'];

/**
 * The `migration` section for the lab: the Proxmox simulator's sample cluster on one side, the vcsim
 * estate on the other, sharing the NFS folder `nfs-migration`.
 */
export function labMigrationSection(stateDir: string): Record<string, unknown> {
  return {
    vmidBase: 20000,
    node: 'pve1',
    targetStorage: 'local-lvm',
    migrationDatastore: ESTATE.migrationDatastore,
    datastores: [{ datastore: ESTATE.migrationDatastore, storage: 'nfs-migration', path: nfsMigrationDir(stateDir) }],
    network: { zone: 'ferry', bridge: 'vmbr0', vnetPrefix: 'v', overrides: [] },
    approvers: LAB_APPROVERS,
    relocateTimeout: '30m',
    cutover: { mode: 'import', shutdownTimeout: '2m', forcePowerOff: true },
  };
}

/** The lab's migration rules: no process of its own, only the `migration` section joining the two sides. */
export const migrationLabComponent: LabComponent = {
  name: 'migration',
  async start({ stateDir }) {
    return {
      name: 'migration',
      summary: `vcsim → Proxmox simulator through nfs-migration; approvers ${LAB_APPROVERS.join(', ')}`,
      config: { migration: labMigrationSection(stateDir) },
      stop: async () => undefined,
    };
  },
};
