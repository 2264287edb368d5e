import path from 'node:path';
import type { LabComponent } from './components';
import { LAB_APPROVERS } from './migration-lab';
import { LAB_NETBOX } from './netbox-seed';

/** The lab's forward zone (BIND serves it, and its reverse zone for LAB_NETBOX.prefix). */
export const LAB_DNS_ZONE = 'lab.ferry.test';
export const LAB_REVERSE_ZONE = '2.0.192.in-addr.arpa';

/**
 * The `provisioning` section for the lab: VMs of the lab NetBox are built on the simulator's pve1,
 * addressed from the lab prefix and named in the lab zone; each new VM's ACL gives the `admins`
 * group PVEVMUser; a VM that is `active` in NetBox needs one of the lab approvers to be torn down.
 */
export function labProvisioningSection(): Record<string, unknown> {
  return {
    node: 'pve1',
    storage: 'local-lvm',
    network: 'vmbr0',
    prefix: LAB_NETBOX.prefix,
    dnsZone: LAB_DNS_ZONE,
    vmidRange: { min: 9100, max: 9999 },
    acl: { roles: ['PVEVMUser'], groups: ['admins'] },
    approvers: LAB_APPROVERS,
    // The lab's approvers are names anyone can claim; a real ferry.yaml signs (see ferry.example.yaml).
    approvals: 'unsigned',
    teardown: { approvalFor: ['active'], netbox: 'delete', shutdownTimeout: '30s' },
  };
}

/** The known_hosts file the lab's teardowns clean (in the lab's state folder). */
export function labKnownHostsFile(stateDir: string): string {
  return path.join(stateDir, 'known_hosts');
}

/** The lab's provisioning rules: no process of its own, only the `provisioning` and `knownHosts` sections. */
export const provisioningLabComponent: LabComponent = {
  name: 'provisioning',
  async start({ stateDir }) {
    return {
      name: 'provisioning',
      summary: `NetBox planned VMs → pve1, addresses from ${LAB_NETBOX.prefix}, names in ${LAB_DNS_ZONE}; known_hosts ${labKnownHostsFile(stateDir)}`,
      config: { provisioning: labProvisioningSection(), knownHosts: { file: labKnownHostsFile(stateDir) } },
      stop: async () => undefined,
    };
  },
};
