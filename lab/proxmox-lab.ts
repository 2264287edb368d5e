import { simulatorGuestEndpoints } from './guest-endpoints';
import { SimulatorAdmin } from './proxmox-sim/admin-client';
import { SAMPLE_NODES, sampleCluster, sampleCredentials } from './proxmox-sim/sample-cluster';
import { startProxmoxSimulator } from './proxmox-sim/server';
import type { Flavour } from './proxmox-sim/schema/subset';
import type { LabComponent } from './components';
import { guestPorts } from './proxmox-sim/qemu/guest-network';
import { guestNetworksByMac } from './vcsim/estate';

/**
 * The lab's Proxmox VE: the simulator with the sample cluster on https://127.0.0.1:8006
 * (`FERRY_LAB_PROXMOX_PORT` moves it, `FERRY_LAB_PROXMOX_FLAVOUR` picks 8.4 or 9.1, default 9.1). It
 * hands the lab the `proxmox` config section (trusting the simulator's CA file) and the token secret.
 */
export const proxmoxLabComponent: LabComponent = {
  name: 'proxmox',
  async start({ stateDir, log }) {
    const port = Number(process.env.FERRY_LAB_PROXMOX_PORT ?? 8006);
    const flavour = (process.env.FERRY_LAB_PROXMOX_FLAVOUR ?? '9.1') as Flavour;
    if (flavour !== '8.4' && flavour !== '9.1')
      throw new Error(`FERRY_LAB_PROXMOX_FLAVOUR must be 8.4 or 9.1, got "${String(flavour)}"`);
    const credentials = sampleCredentials();
    const sim = await startProxmoxSimulator({
      ...sampleCluster(stateDir, flavour, credentials),
      port,
      // Tasks take a moment, as on a real cluster; a new VM is listed as soon as its config exists.
      settings: { createTaskMs: 500, taskMs: 100, importTaskMs: 1500 },
    });
    const auth = `Authorization: PVEAPIToken=${credentials.tokenId}=${credentials.tokenSecret}`;
    log(`lab: proxmox: the API, with the lab's own throwaway token:`);
    log(`  curl -k -H '${auth}' ${sim.url}/api2/json/version`);
    log(`  curl -k -H '${auth}' '${sim.url}/api2/json/cluster/resources?tpye=vm'    # misspelled: 400 naming it`);
    log(
      `  curl -k -H '${auth}' ${sim.url}/_sim/state                              # simulator admin: state, log, faults`,
    );
    const admin = new SimulatorAdmin(sim.url, sim.caFile, { id: credentials.tokenId, secret: credentials.tokenSecret });
    // The estate's guests' static addresses, for the user-mode networks of whichever VM gets their MACs.
    await admin.setGuestNetworksByMac(guestNetworksByMac(guestPorts()));
    return {
      name: 'proxmox',
      summary: `PVE ${flavour} simulator on ${sim.url} (nodes ${SAMPLE_NODES.join(', ')}; storages local, local-lvm, nfs-migration; CA ${sim.caFile})`,
      config: {
        proxmox: {
          host: sim.host,
          port: sim.port,
          user: credentials.tokenUser,
          tokenId: credentials.tokenName,
          // root@pam's ticket, only for importing VMware disks by path (see proxmox.privilegedUser).
          privilegedUser: 'root@pam',
          validateCerts: true,
          caFile: sim.caFile,
        },
      },
      env: { PROXMOX_TOKEN_SECRET: credentials.tokenSecret, PROXMOX_PRIVILEGED_PASSWORD: credentials.rootPassword },
      // verify-guest's probes reach the guests through the loopback ports the simulator forwards to them.
      deps: { guestEndpoints: simulatorGuestEndpoints(admin) },
      stop: async () => {
        await admin.close();
        await sim.stop();
      },
    };
  },
};
