/** The smallest valid `migration` section of ferry.yaml, for config tests to extend. */
export const MIGRATION_BASE = {
  vmidBase: 20000,
  node: 'pve1',
  targetStorage: 'local-lvm',
  migrationDatastore: 'nfs-migration',
  datastores: [{ datastore: 'nfs-migration', storage: 'nfs-migration', path: '/mnt/pve/nfs-migration' }],
  approvers: ['alice'],
  approvals: 'unsigned',
};
