import type { ProvisioningSettings, TeardownStage, TeardownStatus, TeardownStep } from '../../src/domain/provisioning';
import { provisioningTiming } from '../provisioning/run-context';
import { activityProfiles, type ActivityProfiles } from '../vm/proxies';
import { VmRun } from '../vm/run';

/** One teardown, as every stage sees it: the kernel's run with the settings and activity profiles. */
export class TeardownRun extends VmRun<TeardownStage, TeardownStatus, TeardownStep> {
  readonly acts: ActivityProfiles;

  constructor(
    readonly settings: ProvisioningSettings,
    status: TeardownStatus,
  ) {
    super(status, (s) => s.steps, `VM ${status.vmid}`);
    this.acts = activityProfiles(provisioningTiming(settings));
  }
}
