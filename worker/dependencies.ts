import type { ActivityDeps } from '../activities';
import type { FerryConfig } from '../src/config';
import { createPrivilegedProxmoxClient, createProxmoxClient } from '../src/proxmox';
import { VsphereClient } from '../src/vsphere';
import { DnsClient } from '../src/dns/client';
import { NetboxClient } from '../src/netbox/client';
import { Runtime } from '@temporalio/worker';
import { yieldAtMostMs } from '../src/config/conversion';
import { processConversionYield } from '../src/conversion/yield-to-cutovers';

/** Builds the outside-system clients activities use from the worker's configuration. */
export async function createDependencies(config: FerryConfig): Promise<ActivityDeps> {
  const yieldAtMost = config.migration ? yieldAtMostMs(config.migration.conversion) : undefined;
  return {
    config,
    ...(config.proxmox ? { proxmox: createProxmoxClient(config.proxmox) } : {}),
    ...(config.proxmox?.privilegedPassword ? { proxmoxPrivileged: createPrivilegedProxmoxClient(config.proxmox) } : {}),
    ...(config.vsphere ? { vsphere: new VsphereClient(config.vsphere) } : {}),
    ...(config.netbox ? { netbox: NetboxClient.fromConfig(config.netbox) } : {}),
    ...(config.dns ? { dns: DnsClient.fromConfig(config.dns) } : {}),
    ...(yieldAtMost !== undefined
      ? { conversionYield: processConversionYield(yieldAtMost, (line) => Runtime.instance().logger.info(line)) }
      : {}),
  };
}
