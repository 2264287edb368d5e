import type { ActivityDeps } from '../../activities';
import type { FerryConfig } from '../config';
import { VsphereClient } from '../vsphere';

/** Builds the outside-system clients activities use from the worker's configuration. */
export async function createDependencies(config: FerryConfig): Promise<ActivityDeps> {
  return { config, vsphere: config.vsphere ? new VsphereClient(config.vsphere) : undefined };
}
