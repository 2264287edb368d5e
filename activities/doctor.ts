import { getClient } from '@temporalio/activity';
import type { ActivityDeps } from './deps';
import type { EndpointRef, EndpointVerdict } from '../src/domain/doctor';
import { checkTemporal } from '../src/doctor/temporal';
import { checkVsphere } from '../src/doctor/vsphere';
import { checkProxmox } from '../src/doctor/proxmox';
import { checkNetbox } from '../src/doctor/netbox';
import { checkDns } from '../src/doctor/dns';

/** The activities the doctor workflow calls: the configured endpoints, then one check each. */
export interface DoctorActivities {
  /** The endpoints this worker is configured for, by name and address (never credentials). */
  listEndpoints(): Promise<EndpointRef[]>;
  checkTemporal(): Promise<EndpointVerdict>;
  checkProxmox(): Promise<EndpointVerdict>;
  checkVsphere(): Promise<EndpointVerdict>;
  checkNetbox(): Promise<EndpointVerdict>;
  checkDns(): Promise<EndpointVerdict>;
}

export function createDoctorActivities(deps: ActivityDeps): DoctorActivities {
  const { config } = deps;
  const notYet = (ref: EndpointRef): EndpointVerdict => ({
    ...ref,
    ok: false,
    reachable: false,
    authenticated: null,
    tls: 'not-applicable',
    detail: 'this version of ferry has no check for this endpoint',
    latencyMs: 0,
  });

  return {
    async listEndpoints(): Promise<EndpointRef[]> {
      const refs: EndpointRef[] = [{ endpoint: 'temporal', target: config.temporal.address }];
      if (config.proxmox)
        refs.push({ endpoint: 'proxmox', target: `https://${config.proxmox.host}:${config.proxmox.port}` });
      if (config.vsphere)
        refs.push({ endpoint: 'vsphere', target: `https://${config.vsphere.host}:${config.vsphere.port}/sdk` });
      if (config.netbox) refs.push({ endpoint: 'netbox', target: config.netbox.url });
      if (config.dns) refs.push({ endpoint: 'dns', target: `${config.dns.server}:${config.dns.port}` });
      return refs;
    },
    async checkTemporal(): Promise<EndpointVerdict> {
      return checkTemporal(getClient(), config.temporal);
    },
    async checkProxmox(): Promise<EndpointVerdict> {
      if (!config.proxmox) return notYet({ endpoint: 'proxmox', target: '' });
      const target = `https://${config.proxmox.host}:${config.proxmox.port}`;
      if (!deps.proxmox)
        return {
          ...notYet({ endpoint: 'proxmox', target }),
          detail: 'the worker was started without a Proxmox client (createDependencies builds it)',
        };
      return checkProxmox(deps.proxmox, config.proxmox);
    },
    async checkVsphere(): Promise<EndpointVerdict> {
      if (!config.vsphere) return notYet({ endpoint: 'vsphere', target: '' });
      return checkVsphere(config.vsphere);
    },
    async checkNetbox(): Promise<EndpointVerdict> {
      if (!config.netbox) return notYet({ endpoint: 'netbox', target: '' });
      return checkNetbox(config.netbox, deps.netbox);
    },
    async checkDns(): Promise<EndpointVerdict> {
      if (!config.dns) return notYet({ endpoint: 'dns', target: '' });
      return checkDns(config.dns, deps.dns);
    },
  };
}
