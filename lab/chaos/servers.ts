import path from 'node:path';
import { startBind, type BindServer } from '../bind-server';
import { startMigrationSims, type MigrationSims } from '../migration-lab';
import { startNetbox, type NetboxServer } from '../netbox-server';
import { LAB_DNS_ZONE, LAB_REVERSE_ZONE, labKnownHostsFile, labProvisioningSection } from '../provisioning-lab';
import { startDevServer, type DevServer } from '../temporal-dev-server';
import { freePort } from '../free-port';
import { startServerProcess } from '../server-process';
import { toolPath } from '../tools';
import { DnsClient } from '../../src/dns/client';
import { tsigKey } from '../../src/dns/tsig';
import { startFaultProxy, type FaultProxy } from './fault-proxy';

/** Every server the chaos run needs, without a worker: the workers are separate processes (worker-fleet.ts). */
export interface ChaosServers {
  stateDir: string;
  temporal: DevServer;
  sims: MigrationSims;
  netbox: NetboxServer;
  bind: BindServer;
  /** In front of vcsim (HTTPS, its own certificate) and NetBox (HTTP). */
  vcsimProxy: FaultProxy;
  netboxProxy: FaultProxy;
  /** ferry.yaml for the workers (through the fault proxies; no secrets) and the secrets. */
  workerDocument: Record<string, unknown>;
  /** The same, straight to each server, for the checker's reads. */
  directDocument: Record<string, unknown>;
  env: Record<string, string>;
  /** kill -9 the Temporal dev server and start it again on the same port and SQLite file. */
  restartTemporal(): Promise<void>;
  /** Stops BIND, waits, and starts it again on the same port with its zones and journals. */
  bindOutage(seconds: number): Promise<void>;
  stop(): Promise<void>;
}

export const CHAOS_TASK_QUEUE = 'chaos';

/**
 * The chaos run's servers: a Temporal dev server on a SQLite file (so a kill -9 and restart keeps
 * every workflow), the Proxmox simulator and vcsim with `scaleVms` scale VMs, a real NetBox and BIND,
 * and the fault proxies. Tasks are slowed a little so kills land inside them.
 */
export async function startChaosServers(
  stateDir: string,
  scaleVms: number,
  log: (line: string) => void,
): Promise<ChaosServers> {
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch((err: unknown) => log(`chaos: stop failed: ${String(err)}`));
    stops.length = 0;
  };
  try {
    const port = await freePort();
    const dbFile = path.join(stateDir, 'temporal.db');
    const logFile = path.join(stateDir, 'temporal.log');
    let temporal = await startDevServer({ port, dbFile, logFile });
    stops.push(() => temporal.stop());
    log(`chaos: Temporal dev server on ${temporal.address} (${dbFile})`);

    const [sims, netbox, bind] = await Promise.all([
      startMigrationSims({
        stateDir,
        extraVms: scaleVms,
        temporalAddress: temporal.address,
        vcenterName: 'chaos',
        methodDelay: { RelocateVm: 4_000, LockHandoff: 0 },
        // The VMs chaos provisions and migrates stand for guests with an OS: they answer the ACPI button.
        sim: {
          createTaskMs: 800,
          taskMs: 200,
          importTaskMs: 3_000,
          resourcesLagMs: 300,
          guestShutdownMs: 300,
          simulatedGuestsAnswerAcpi: true,
        },
      }),
      startNetbox(),
      startBind({ forwardZone: LAB_DNS_ZONE, reverseZone: LAB_REVERSE_ZONE, dir: path.join(stateDir, 'bind') }),
    ]);
    stops.push(
      () => sims.stop(),
      () => netbox.stop(),
      () => bind.stop(),
    );
    const vcsimUrl = `https://${sims.vcsim.config.host}:${sims.vcsim.config.port}`;
    const tls = path.join(stateDir, 'vcsim', 'tls');
    const vcsimProxy = await startFaultProxy({
      upstream: vcsimUrl,
      upstreamCaFile: sims.vcsim.config.caFile,
      tls: { certFile: path.join(tls, 'server.pem'), keyFile: path.join(tls, 'server.key') },
    });
    const netboxProxy = await startFaultProxy({ upstream: netbox.url });
    stops.push(
      () => vcsimProxy.close(),
      () => netboxProxy.close(),
    );
    log(
      `chaos: Proxmox simulator ${sims.pve.url}; vcsim ${vcsimUrl} behind ${vcsimProxy.url}; NetBox ${netbox.url} behind ${netboxProxy.url}; BIND 127.0.0.1:${bind.port}`,
    );

    const base = sims.document;
    const common = {
      proxmox: base.proxmox,
      migration: { ...(base.migration as object), heartbeatTimeout: '3s' },
      limits: base.limits,
      dns: {
        server: bind.server,
        port: bind.port,
        tsigKeyName: bind.key.name,
        zones: [bind.forwardZone, bind.reverseZone],
      },
      knownHosts: { file: labKnownHostsFile(stateDir) },
      provisioning: {
        ...labProvisioningSection(),
        heartbeatTimeout: '3s',
        pollInterval: '300ms',
        retry: { initialInterval: '300ms', maximumInterval: '3s' },
        teardown: { ...(labProvisioningSection().teardown as object), shutdownTimeout: '2s', cleanupAttempts: 5 },
      },
    };
    const document = (vsphere: Record<string, unknown>, netboxUrl: string, address: string) => ({
      temporal: { address },
      worker: { taskQueue: CHAOS_TASK_QUEUE, shutdownGraceTime: '1s' },
      vsphere,
      netbox: { url: netboxUrl, name: 'chaos' },
      ...common,
    });
    const vsphere = base.vsphere as Record<string, unknown>;
    const servers: ChaosServers = {
      stateDir,
      temporal,
      sims,
      netbox,
      bind,
      vcsimProxy,
      netboxProxy,
      workerDocument: document(
        { ...vsphere, host: vcsimProxy.host, port: vcsimProxy.port },
        netboxProxy.url,
        temporal.address,
      ),
      directDocument: document(vsphere, netbox.url, temporal.address),
      env: { ...sims.env, NETBOX_TOKEN: netbox.tokenV2, FERRY_DNS_TSIG_SECRET: bind.key.secret },
      async restartTemporal() {
        temporal.process.kill('SIGKILL');
        await new Promise((r) =>
          temporal.process.exitCode === null && temporal.process.signalCode === null
            ? temporal.process.once('exit', r)
            : r(undefined),
        );
        temporal = await startDevServer({ port, dbFile, logFile });
        servers.temporal = temporal;
      },
      async bindOutage(seconds) {
        await bind.stop();
        await new Promise((r) => setTimeout(r, seconds * 1000));
        const named = startServerProcess('named', toolPath('named'), [
          '-g',
          '-4',
          '-n',
          '1',
          '-c',
          path.join(bind.dir, 'named.conf'),
        ]);
        stops.push(() => named.stop());
        const probe = new DnsClient({
          server: bind.server,
          port: bind.port,
          key: tsigKey(bind.key.name, bind.key.algorithm, bind.key.secret),
          timeoutMs: 500,
        });
        await named.waitUntil(
          () =>
            probe.soaSerial(bind.forwardZone).then(
              () => true,
              () => false,
            ),
          30_000,
        );
      },
      stop: stopAll,
    };
    return servers;
  } catch (err) {
    await stopAll();
    throw err;
  }
}
