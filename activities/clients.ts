import type { DnsClient } from '../src/dns/client';
import { FerryError } from '../src/errors';
import type { NetboxClient } from '../src/netbox/client';
import type { ProxmoxClient } from '../src/proxmox';
import type { VsphereClient } from '../src/vsphere';
import type { ActivityDeps } from './deps';

/**
 * The clients an activity needs, or a non-retryable error that says which part of the worker's
 * configuration is missing.
 */
export function clientsOf(deps: ActivityDeps) {
  const missing = (what: string, where: string) =>
    new FerryError(`${what} is not configured for this worker (${where})`, 'invalid');
  return {
    vsphere(): VsphereClient {
      if (!deps.vsphere) throw missing('vSphere', 'ferry.yaml vsphere:, VMWARE_*');
      return deps.vsphere;
    },
    pve(): ProxmoxClient {
      if (!deps.proxmox) throw missing('Proxmox', 'ferry.yaml proxmox:, PROXMOX_*');
      return deps.proxmox;
    },
    netbox(): NetboxClient {
      if (!deps.netbox) throw missing('NetBox', 'ferry.yaml netbox:, NETBOX_URL, NETBOX_TOKEN');
      return deps.netbox;
    },
    dns(): DnsClient {
      if (!deps.dns) throw missing('DNS', 'ferry.yaml dns:, FERRY_DNS_*');
      return deps.dns;
    },
  };
}
