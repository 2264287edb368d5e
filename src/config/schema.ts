import { z } from 'zod';
import { temporalSection, workerSection } from './temporal';
import { limitsSection, migrationSection } from './migration';
import { dnsSection, knownHostsSection, netboxSection, proxmoxSection, vsphereSection } from './endpoints';
import { provisioningSection } from './provisioning';
import { changeSection } from './change';

/** The whole of `ferry.yaml` after environment overrides. Endpoint sections are optional: doctor reports what is set. */
export const ferryConfigSchema = z
  .object({
    temporal: temporalSection.default(temporalSection.parse({})),
    worker: workerSection.default(workerSection.parse({})),
    proxmox: proxmoxSection.optional(),
    vsphere: vsphereSection.optional(),
    netbox: netboxSection.optional(),
    dns: dnsSection.optional(),
    limits: limitsSection.default(limitsSection.parse({})),
    migration: migrationSection.optional(),
    knownHosts: knownHostsSection.optional(),
    provisioning: provisioningSection.optional(),
    /** Day 2 (changeVm): hand drift, conflicts, MAC changes, moved and removed disks. */
    change: changeSection,
  })
  .strict();

export type FerryConfig = z.infer<typeof ferryConfigSchema>;
export type ProxmoxConfig = NonNullable<FerryConfig['proxmox']>;
export type VsphereConfig = NonNullable<FerryConfig['vsphere']>;
export type NetboxConfig = NonNullable<FerryConfig['netbox']>;
export type NetboxWebhookConfig = NonNullable<NetboxConfig['webhook']>;
export type DnsConfig = NonNullable<FerryConfig['dns']>;
export type MigrationConfig = NonNullable<FerryConfig['migration']>;
export type KnownHostsConfig = NonNullable<FerryConfig['knownHosts']>;
export type ProvisioningConfig = NonNullable<FerryConfig['provisioning']>;
export type ChangeConfig = FerryConfig['change'];
