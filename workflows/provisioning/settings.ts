import type { ProvisioningSettings } from '../../src/domain/provisioning';
import { reads } from '../vm/proxies';

/** The settings from the worker's ferry.yaml, for a workflow started without them. */
export function loadProvisioningSettings(): Promise<ProvisioningSettings> {
  return reads.loadProvisioningSettings.executeWithOptions(
    { summary: 'read the provisioning settings (ferry.yaml)' },
    [],
  );
}
