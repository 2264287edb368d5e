import type { FerryConfig } from '../src/config';
import type { VsphereClient } from '../src/vsphere';
import type { ProxmoxClient } from '../src/proxmox';
import type { DnsClient } from '../src/dns/client';
import type { NetboxClient } from '../src/netbox/client';
import type { GuestEndpointResolver } from '../src/guest/tcp-probe';
import type { ConversionYield } from '../src/conversion/yield-to-cutovers';

/**
 * What activities are built from. Clients are injected so tests and the lab can point them at
 * simulators; secrets live here, in the worker, and never in workflow inputs or results.
 */
export interface ActivityDeps {
  config: FerryConfig;
  /** vCenter (vim25 SOAP), when `vsphere` is configured; logs in on first use. */
  vsphere?: VsphereClient;
  /** Built from `config.proxmox` (worker/dependencies.ts). */
  proxmox?: ProxmoxClient;
  /** `proxmox.privilegedUser` (root@pam) with a ticket, for import-from by path, live import and removing a live-imported VM only. */
  proxmoxPrivileged?: ProxmoxClient;
  /** Present when `netbox` is configured. */
  netbox?: NetboxClient;
  /** Present when `dns` is configured. */
  dns?: DnsClient;
  /**
   * Where verify-guest's probes connect for a guest's address:port. Default: the address itself. The
   * lab maps it to the loopback port the simulator's QEMU forwards to the guest (see src/guest/tcp-probe.ts).
   */
  guestEndpoints?: GuestEndpointResolver;
  /**
   * This worker process's conversions, paused while a VM's downtime work runs here
   * (migration.conversion.yieldToCutovers); absent when they never yield.
   */
  conversionYield?: ConversionYield;
}
