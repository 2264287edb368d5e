import type { LabComponent } from './components';
import { SimulatorAdmin } from './proxmox-sim/admin-client';
import type { SimSettings } from './proxmox-sim/cluster';
import { sampleCluster, sampleCredentials } from './proxmox-sim/sample-cluster';
import { startProxmoxSimulator, type ProxmoxSimulator } from './proxmox-sim/server';
import { startVcsimLab, type VcsimLab } from './vcsim/vcsim-lab';
import { nfsMigrationDir } from './shared-paths';
import { guestImage } from './guest-image/paths';
import { ESTATE, guestNetworksByMac, NAMED_VMS } from './vcsim/estate';
import { guestPorts } from './proxmox-sim/qemu/guest-network';
import { guestAgentPackagesDir } from './vmware-guest/paths';

/** Lab approvers (ferry.yaml migration.approvers). */
export const LAB_APPROVERS = ['lab-admin', 'alice'];

/**
 * The `migration` section for the lab: the Proxmox simulator's sample cluster on one side, the vcsim
 * estate on the other, sharing the NFS folder `nfs-migration`.
 */
export function labMigrationSection(stateDir: string): Record<string, unknown> {
  return {
    vmidBase: 20000,
    node: 'pve1',
    targetStorage: 'local-lvm',
    migrationDatastore: ESTATE.migrationDatastore,
    datastores: [{ datastore: ESTATE.migrationDatastore, storage: 'nfs-migration', path: nfsMigrationDir(stateDir) }],
    network: { zone: 'ferry', bridge: 'vmbr0', vnetPrefix: 'v', overrides: [] },
    approvers: LAB_APPROVERS,
    // The lab's approvers are names anyone can claim; a real ferry.yaml signs (see ferry.example.yaml).
    approvals: 'unsigned',
    relocateTimeout: '30m',
    cutover: { mode: 'import', shutdownTimeout: '2m', forcePowerOff: true },
  };
}

/**
 * Guest conversion for the VMs that carry a real guest (the others have blank disks: nothing to
 * convert, and each inspection would cost an appliance boot): the VMware-native ones (mig-ens01, BIOS;
 * mig-ens02, EFI) are converted; the lab image's (mig-app01, mig-app02) are inspected and left as they
 * are (no GRUB for virt-v2v; the image boots on virtio anyway). The agent comes from setup's packages.
 */
export function labConversion(): Record<string, unknown> {
  return {
    mode: 'off',
    overrides: Object.fromEntries(NAMED_VMS.filter((vm) => vm.guest).map((vm) => [vm.name, 'linux'])),
    agentPackages: guestAgentPackagesDir(),
  };
}

/**
 * The interactive lab also converts each migrated VM, starts it from overlays of its VMDKs (cutover mode
 * overlay) and proves its guest up before its disks move live: the VMs that carry a real guest boot under
 * QEMU on the simulator and are checked (agent, address, the image's TCP probe); the others have blank
 * disks, so their guests are skipped (reported "not verified"). A guest that fails its checks is rolled
 * back by ferry itself.
 */
export function labGuestVerification(cutover: Record<string, unknown>): Record<string, unknown> {
  const guests = NAMED_VMS.filter((vm) => vm.guest).map((vm) => vm.name);
  return {
    // overlay: each VM runs from overlays of its VMDKs at once and its disks move live once it is verified.
    cutover: { ...cutover, mode: 'overlay', startAfter: true },
    conversion: labConversion(),
    verify: {
      probes: [{ tcp: guestImage().manifest.probe.port }],
      onFailure: 'rollback',
      agentTimeout: '4m',
      // The lab guest's address follows its agent within seconds: mig-ens01's missing one is judged after
      // 15 s instead of the default minute, and the checks are asked every second instead of every 5.
      networkTimeout: '15s',
      pollInterval: '1s',
      skip: [...NAMED_VMS.filter((vm) => !guests.includes(vm.name)).map((vm) => vm.name), 'scale-*' /* scaleVmName */],
    },
  };
}

/** The lab's migration rules: no process of its own, only the `migration` section joining the two sides. */
export const migrationLabComponent: LabComponent = {
  name: 'migration',
  async start({ stateDir }) {
    const section = labMigrationSection(stateDir);
    return {
      name: 'migration',
      summary: `vcsim → Proxmox simulator through nfs-migration; approvers ${LAB_APPROVERS.join(', ')}; real guests converted, started and verified`,
      config: { migration: { ...section, ...labGuestVerification(section.cutover as Record<string, unknown>) } },
      stop: async () => undefined,
    };
  },
};

export interface MigrationSimsOptions {
  stateDir: string;
  /** Scale VMs in the vcsim estate. */
  extraVms: number;
  temporalAddress: string;
  /** The vCenter's name in workflow ids (unique per run keeps runs apart). */
  vcenterName: string;
  sim?: Partial<SimSettings>;
  methodDelay?: Record<string, number>;
  migration?: Record<string, unknown>;
  limits?: Record<string, number>;
}

export interface MigrationSims {
  pve: ProxmoxSimulator;
  vcsim: VcsimLab;
  /** Simulator admin (request and task logs, faults). */
  admin: SimulatorAdmin;
  /** ferry.yaml for a worker against both simulators (no secrets), and the secrets. */
  document: Record<string, unknown>;
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * The Proxmox simulator (PVE 9.1 sample cluster) and vcsim (the lab estate) sharing one state folder,
 * so the NFS datastore `nfs-migration` is one folder for both: what tests and the benchmark migrate.
 */
export async function startMigrationSims(options: MigrationSimsOptions): Promise<MigrationSims> {
  const credentials = sampleCredentials();
  const pve = await startProxmoxSimulator({
    ...sampleCluster(options.stateDir, '9.1', credentials),
    settings: { createTaskMs: 50, taskMs: 20, authFailureDelayMs: 50, ...options.sim },
  });
  const vcsim = await startVcsimLab({
    stateDir: options.stateDir,
    extraVms: options.extraVms,
    methodDelay: options.methodDelay,
  });
  const admin = new SimulatorAdmin(pve.url, pve.caFile, { id: credentials.tokenId, secret: credentials.tokenSecret });
  await admin.setGuestNetworksByMac(guestNetworksByMac(guestPorts()));
  return {
    pve,
    vcsim,
    admin,
    document: {
      temporal: { address: options.temporalAddress },
      proxmox: {
        host: pve.host,
        port: pve.port,
        user: credentials.tokenUser,
        tokenId: credentials.tokenName,
        privilegedUser: 'root@pam',
        validateCerts: true,
        caFile: pve.caFile,
      },
      vsphere: { ...vcsim.config, name: options.vcenterName, discovery: { datacenter: ESTATE.datacenter } },
      migration: { ...labMigrationSection(options.stateDir), ...options.migration },
      limits: { vmotion: 2, importPerStorage: 2, ...options.limits },
    },
    env: {
      PROXMOX_TOKEN_SECRET: credentials.tokenSecret,
      PROXMOX_PRIVILEGED_PASSWORD: credentials.rootPassword,
      VMWARE_PASSWORD: vcsim.password,
    },
    async stop() {
      await admin.close();
      await vcsim.stop();
      await pve.stop();
    },
  };
}
