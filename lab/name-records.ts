import { randomBytes } from 'node:crypto';
import { NetboxClient } from '../src/netbox/client';
import { freePort } from './free-port';
import { startBind } from './bind-server';
import type { LabComponent } from './components';
import { startNetbox } from './netbox-server';
import { labRunStamp } from './vcsim/vcsim-lab';
import { LAB_NETBOX, seedLabNetbox } from './netbox-seed';
import { LAB_DNS_ZONE, LAB_REVERSE_ZONE } from './provisioning-lab';

/**
 * The lab's source of truth: a real NetBox (PyPI package, PostgreSQL and Redis from Debian), seeded
 * with a site, a Proxmox cluster, the VM prefix, ferry's custom fields and VMs in status `planned`. Its
 * background worker delivers the signed webhook of VM, interface and disk edits to ferry's receiver,
 * which the lab runs beside its worker (`netbox.webhook` with `inWorker`; the lab sets the rule up).
 */
export const netboxLabComponent: LabComponent = {
  name: 'netbox',
  async start({ log }) {
    const netbox = await startNetbox({ rqWorker: true });
    const webhookPort = await freePort();
    try {
      const client = NetboxClient.fromConfig({ url: netbox.url, token: netbox.tokenV2, validateCerts: true });
      const seeded = await seedLabNetbox(client).finally(() => client.close());
      log(
        `lab: netbox: seeded ${Object.keys(seeded.vmIds).length} planned VMs in cluster ${LAB_NETBOX.cluster}, prefix ${LAB_NETBOX.prefix}`,
      );
    } catch (err) {
      await netbox.stop();
      throw err;
    }
    return {
      name: 'netbox',
      summary: `NetBox ${netbox.version} (real) at ${netbox.url}/api/ (user ${netbox.username}, password in .tools/netbox/admin-password)`,
      // A fresh NetBox each run numbers its VMs from 1 again: a name per run keeps workflow ids apart.
      config: {
        netbox: {
          url: netbox.url,
          name: `lab-${labRunStamp()}`,
          webhook: {
            url: `http://127.0.0.1:${webhookPort}/netbox/webhook`,
            listen: `127.0.0.1:${webhookPort}`,
            inWorker: true,
          },
        },
      },
      env: { NETBOX_TOKEN: netbox.tokenV2, FERRY_NETBOX_WEBHOOK_SECRET: randomBytes(24).toString('hex') },
      stop: () => netbox.stop(),
    };
  },
};

/** The lab's DNS: BIND 9 with the forward zone of the lab VMs and the reverse zone of their prefix. */
export const bindLabComponent: LabComponent = {
  name: 'dns',
  async start() {
    const bind = await startBind({ forwardZone: LAB_DNS_ZONE, reverseZone: LAB_REVERSE_ZONE });
    return {
      name: 'dns',
      summary: `BIND ${bind.version} on ${bind.server}:${bind.port}, dynamic zones ${bind.forwardZone} and ${bind.reverseZone} (TSIG key ${bind.key.name})`,
      config: {
        dns: {
          server: bind.server,
          port: bind.port,
          tsigKeyName: bind.key.name,
          tsigAlgorithm: bind.key.algorithm,
          zones: [bind.forwardZone, bind.reverseZone],
        },
      },
      env: { FERRY_DNS_TSIG_SECRET: bind.key.secret },
      stop: () => bind.stop(),
    };
  },
};
