import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { LabComponent } from './components';
import { guestImage } from './guest-image/paths';
import { LAB_APPROVERS } from './migration-lab';
import { LAB_GUEST_IMAGE_VOLUME, LAB_NETBOX } from './netbox-seed';

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

/**
 * Puts the lab guest image where LAB_GUEST_IMAGE_VOLUME names it: the `import` folder of the
 * simulator's `local` storage on pve1 (a sparse copy: 384 MiB apparent, a fraction of it on disk).
 */
async function placeGuestImage(stateDir: string): Promise<string> {
  const [storage, volume] = LAB_GUEST_IMAGE_VOLUME.split(':') as [string, string];
  const target = path.join(stateDir, 'proxmox', 'storage', storage, 'pve1', volume);
  mkdirSync(path.dirname(target), { recursive: true });
  await promisify(execFile)('cp', ['--sparse=always', guestImage().raw('mac'), target]);
  return target;
}

/**
 * The lab's provisioning rules: no process of its own, only the `provisioning` and `knownHosts`
 * sections. The planned VMs are started; the one whose record names the guest image (lab-web1) boots
 * it under QEMU and is verified (agent, its NetBox address on the guest).
 */
export const provisioningLabComponent: LabComponent = {
  name: 'provisioning',
  async start({ stateDir }) {
    await placeGuestImage(stateDir);
    return {
      name: 'provisioning',
      summary: `NetBox planned VMs → pve1, addresses from ${LAB_NETBOX.prefix}, names in ${LAB_DNS_ZONE}, started (lab-web1 boots ${LAB_GUEST_IMAGE_VOLUME}); known_hosts ${labKnownHostsFile(stateDir)}`,
      // secureBoot false: OVMF with enrolled keys refuses the lab image's unsigned systemd-boot (it tries PXE instead).
      // Memory hotplug (with NUMA) on: the day-2 sample adds memory to lab-web1 live.
      config: {
        provisioning: {
          ...labProvisioningSection(),
          start: true,
          secureBoot: false,
          extras: { rng0: 'source=/dev/urandom', numa: '1', hotplug: 'network,disk,memory,usb' },
        },
        knownHosts: { file: labKnownHostsFile(stateDir) },
      },
      stop: async () => undefined,
    };
  },
};
