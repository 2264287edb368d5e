import type { ActivityDeps } from '../../activities';
import type { FerryConfig } from '../config';
import { DnsClient } from '../dns/client';
import { NetboxClient } from '../netbox/client';

/** Builds the outside-system clients activities use from the worker's configuration. */
export async function createDependencies(config: FerryConfig): Promise<ActivityDeps> {
  return {
    config,
    netbox: config.netbox ? NetboxClient.fromConfig(config.netbox) : undefined,
    dns: config.dns ? DnsClient.fromConfig(config.dns) : undefined,
  };
}
