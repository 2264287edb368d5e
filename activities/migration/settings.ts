import { migrationSettings } from '../../src/config';
import { FerryError } from '../../src/errors';
import type { ActivityDeps } from '../deps';
import type { MigrationSettingsActivities } from '../migration-contract';
import { vcenterName } from './vsphere-discovery';

export function createMigrationSettingsActivities(deps: ActivityDeps): MigrationSettingsActivities {
  return {
    async loadMigrationSettings() {
      const m = deps.config.migration;
      if (!m)
        throw new FerryError(
          'ferry.yaml has no migration: section (vmidBase, node, targetStorage, datastores, approvers, …)',
          'invalid',
        );
      return migrationSettings(m, deps.config.limits, vcenterName(deps));
    },
  };
}
