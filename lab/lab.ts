import type { ActivityDeps } from '../activities';
import path from 'node:path';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { parseConfig, type FerryConfig } from '../src/config';
import { STATE_DIR } from '../src/paths';
import { createDependencies } from '../worker/dependencies';
import { createWorkers, runWorkers } from '../worker/create-workers';
import { startDevServer, type DevServer } from './temporal-dev-server';
import { LAB_COMPONENTS, type LabComponentHandle, type LabContext } from './components';
import { writeLabConfigFile } from './lab-config-file';
import { NetboxClient } from '../src/netbox/client';
import { ensureNetboxWebhook } from '../src/netbox/webhook-setup';
import { startNetboxWebhookReceiver } from '../src/webhook/receiver';
import { Client, Connection } from '@temporalio/client';
import { closeEarlierLabRuns, describeClosed } from './earlier-runs';

/** NetBox's webhook and event rule (as `ferry netbox setup` makes them) and the receiver, as the worker runs it. */
async function startWebhook(config: FerryConfig, stops: Array<() => Promise<void>>, log: (line: string) => void) {
  const webhook = config.netbox?.webhook;
  if (!config.netbox || !webhook?.inWorker) return;
  const client = NetboxClient.fromConfig(config.netbox);
  await ensureNetboxWebhook(client, webhook).finally(() => client.close());
  const receiver = await startNetboxWebhookReceiver(config, { log });
  stops.push(() => receiver.close());
  log(`lab: NetBox's event rule posts VM, interface and disk edits to ${receiver.url} (signed) → changeVm`);
}

export interface LabOptions {
  temporalPort?: number;
  uiPort?: number;
  /** Keep the Temporal history in a SQLite file under the state folder (default true). */
  persist?: boolean;
  stateDir?: string;
  log?: (line: string) => void;
}

export interface Lab {
  config: FerryConfig;
  /** The lab's configuration without secrets, for `FERRY_CONFIG=… ferry …` by hand. */
  configFile: string;
  temporal: DevServer;
  workers: Worker[];
  components: LabComponentHandle[];
  /** Resolves when the workers stop. */
  running: Promise<void>;
  stop(): Promise<void>;
}

/**
 * ferry's embedded lab: the Temporal dev server (with UI), the simulators and real servers the lab
 * components bring, and a worker configured against all of them.
 */
export async function startLab(options: LabOptions = {}): Promise<Lab> {
  const log = options.log ?? ((line: string) => console.log(line));
  const stateDir = options.stateDir ?? path.join(STATE_DIR, 'lab');
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch((err: unknown) => log(`lab: stop failed: ${String(err)}`));
    stops.length = 0;
  };

  try {
    const temporal = await startDevServer({
      port: options.temporalPort ?? 7233,
      uiPort: options.uiPort,
      dbFile: options.persist === false ? undefined : path.join(stateDir, 'temporal.db'),
      logFile: path.join(stateDir, 'temporal.log'),
    });
    stops.push(() => temporal.stop());
    log(`lab: Temporal dev server on ${temporal.address}${temporal.uiUrl ? `, UI ${temporal.uiUrl}` : ''}`);
    if (options.persist !== false) {
      const line = describeClosed(await closeEarlierRuns(temporal));
      if (line) log(line);
    }

    const context: LabContext = { stateDir, log };
    const components: LabComponentHandle[] = [];
    let document: Record<string, unknown> = { temporal: { address: temporal.address, namespace: temporal.namespace } };
    for (const component of LAB_COMPONENTS) {
      const handle = await component.start(context);
      stops.push(() => handle.stop());
      components.push(handle);
      document = { ...document, ...handle.config };
      log(`lab: ${component.name}: ${handle.summary}`);
    }
    // The lab is self-contained: the user's environment does not leak into its configuration.
    const config = parseConfig(
      document,
      { ...Object.fromEntries(components.flatMap((c) => Object.entries(c.env ?? {}))) },
      'lab',
    );
    const configFile = writeLabConfigFile(stateDir, document);

    // The lab owns Ctrl-C (it stops the worker, then the servers) and keeps the SDK's chatter down.
    Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });
    const connection = await NativeConnection.connect({ address: temporal.address });
    stops.push(() => connection.close());
    const injected = Object.assign({}, ...components.map((c) => c.deps ?? {})) as Partial<ActivityDeps>;
    const workers = await createWorkers({
      config,
      connection,
      deps: { ...(await createDependencies(config)), ...injected },
    });
    const running = runWorkers(workers);
    stops.push(async () => {
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
      await running;
    });
    log(`lab: worker serving ${workers.map((w) => w.options.taskQueue).join(', ')}`);
    await startWebhook(config, stops, log);
    return { config, configFile, temporal, workers, components, running, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** closeEarlierLabRuns on the lab's own server, before its worker starts (every running workflow there is an earlier run's). */
async function closeEarlierRuns(temporal: DevServer): Promise<string[]> {
  const connection = await Connection.connect({ address: temporal.address });
  try {
    return await closeEarlierLabRuns(new Client({ connection, namespace: temporal.namespace }));
  } finally {
    await connection.close();
  }
}
