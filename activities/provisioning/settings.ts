import { provisioningSettings } from '../../src/config/provisioning-settings';
import type { ActivityDeps } from '../deps';
import type { ProvisioningActivities } from '../provisioning-contract';

/** The settings come from the worker's configuration, read by an activity so history holds them. */
export function createSettingsActivities(deps: ActivityDeps): Pick<ProvisioningActivities, 'loadProvisioningSettings'> {
  return {
    async loadProvisioningSettings() {
      return provisioningSettings(deps.config, { netbox: Boolean(deps.netbox), dns: Boolean(deps.dns) });
    },
  };
}
