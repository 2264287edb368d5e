import type { ProvisioningSettings, TeardownStage, TeardownStatus } from '../../src/domain/provisioning';
import { provisioningProxies, type ProvisioningProxies } from '../provisioning/proxies';
import type { EnterStage } from '../provisioning/stage';

/** What every teardown stage works with: the settings, the activity proxies, and the status it reports into. */
export interface TeardownRun {
  readonly settings: ProvisioningSettings;
  readonly acts: ProvisioningProxies;
  readonly status: TeardownStatus;
  enter: EnterStage<TeardownStage>;
}

export function teardownRun(
  settings: ProvisioningSettings,
  status: TeardownStatus,
  enter: EnterStage<TeardownStage>,
): TeardownRun {
  return { settings, acts: provisioningProxies(settings), status, enter };
}
