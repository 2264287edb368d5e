import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { NativeConnection } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../../activities';
import { coordinationQueue, heavyQueue } from '../../src/domain/task-queues';
import { parseConfig } from '../../src/config';
import { startBind, type BindServer } from '../../lab/bind-server';
import { startNetbox, type NetboxServer } from '../../lab/netbox-server';
import { LAB_NETBOX, seedLabNetbox, type SeededNetbox } from '../../lab/netbox-seed';
import { LAB_DNS_ZONE, LAB_REVERSE_ZONE, labKnownHostsFile, labProvisioningSection } from '../../lab/provisioning-lab';
import { SimulatorAdmin } from '../../lab/proxmox-sim/admin-client';
import type { SimSettings } from '../../lab/proxmox-sim/cluster';
import { SAMPLE_ISO, sampleCluster, sampleCredentials } from '../../lab/proxmox-sim/sample-cluster';
import { startProxmoxSimulator } from '../../lab/proxmox-sim/server';
import { NetboxClient } from '../../src/netbox/client';
import { idOnly } from '../../src/netbox/schemas';
import { createDependencies } from '../../worker/dependencies';
import { provisionWorkflowId, type ProvisionResult } from '../../src/domain/provisioning';
import type { provisionVm } from '../../workflows/provision-vm';
import type { MigrationLab } from './migration-lab';
import { spawnFerry } from './processes';
import { connectTestTemporal, createTestWorker, devServerAddress, uniqueName, type TestTemporal } from './temporal';

/** The simulator side is the migration lab's (state folder, simulator, admin, config, deps); vcsim is not needed. */
export interface ProvisionLab extends Omit<MigrationLab, 'vcsim'> {
  netbox: NetboxServer;
  /** A NetBox client for the test's own reads and setup (the worker has its own). */
  nb: NetboxClient;
  bind: BindServer;
  seeded: SeededNetbox;
  knownHostsFile: string;
  /** A NetBox tag (created if missing); returns its slug. */
  tag(slug: string): Promise<string>;
  /** A new NetBox VM (status `planned` unless given) in the lab cluster. */
  plannedVm(spec: {
    name?: string;
    status?: string;
    vcpus?: number;
    memory?: number;
    disk?: number;
    tags?: string[];
    fields?: Record<string, unknown>;
  }): Promise<{ id: number; name: string }>;
}

export interface ProvisionLabOptions {
  sim?: Partial<SimSettings>;
  provisioning?: Record<string, unknown>;
  /** BIND's reverse zone (default the lab prefix's): a test that allocates from a prefix of its own. */
  reverseZone?: string;
  /** ferry.yaml `change` (day 2). */
  change?: Record<string, unknown>;
}

/**
 * Everything provisioning talks to, on loopback: the Proxmox simulator (sample cluster), a real
 * NetBox seeded like the lab, BIND with the lab zones, a known_hosts file; and the worker
 * dependencies for them.
 */
export async function startProvisionLab(options: ProvisionLabOptions = {}): Promise<ProvisionLab> {
  const stateDir = mkdtempSync(path.join(tmpdir(), 'ferry-provision-'));
  const credentials = sampleCredentials();
  const started = await Promise.allSettled([
    startProxmoxSimulator({
      ...sampleCluster(stateDir, '9.1', credentials),
      settings: {
        resourcesLagMs: 300,
        createTaskMs: 50,
        taskMs: 20,
        authFailureDelayMs: 50,
        guestShutdownMs: 100,
        // Provisioned VMs are clones of a template with an OS: simulated ones answer the ACPI button.
        simulatedGuestsAnswerAcpi: true,
        ...options.sim,
      },
    }),
    startNetbox(),
    startBind({ forwardZone: LAB_DNS_ZONE, reverseZone: options.reverseZone ?? LAB_REVERSE_ZONE }),
  ] as const);
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    // One part did not start (NetBox on a starved machine): stop the others, or BIND keeps jest alive.
    await Promise.all(
      started.flatMap((s) => (s.status === 'fulfilled' ? [s.value.stop().catch(() => undefined)] : [])),
    );
    rmSync(stateDir, { recursive: true, force: true });
    throw failed.reason;
  }
  const [pve, netbox, bind] = started.map((s) => (s as PromiseFulfilledResult<unknown>).value) as [
    Awaited<ReturnType<typeof startProxmoxSimulator>>,
    NetboxServer,
    BindServer,
  ];
  const nb = NetboxClient.fromConfig({ url: netbox.url, token: netbox.tokenV2, validateCerts: true });
  const seeded = await seedLabNetbox(nb);
  const knownHostsFile = labKnownHostsFile(stateDir);
  const document: Record<string, unknown> = {
    temporal: { address: devServerAddress() },
    proxmox: {
      host: pve.host,
      port: pve.port,
      user: credentials.tokenUser,
      tokenId: credentials.tokenName,
      validateCerts: true,
      caFile: pve.caFile,
    },
    // A name of its own, so workflow ids (provision-<netbox>-<id>) never meet another test's.
    netbox: { url: netbox.url, name: uniqueName('nb') },
    dns: {
      server: bind.server,
      port: bind.port,
      tsigKeyName: bind.key.name,
      zones: [bind.forwardZone, bind.reverseZone],
    },
    knownHosts: { file: knownHostsFile },
    ...(options.change ? { change: options.change } : {}),
    provisioning: {
      ...labProvisioningSection(),
      heartbeatTimeout: '3s',
      pollInterval: '200ms',
      retry: { initialInterval: '200ms', maximumInterval: '2s' },
      ...options.provisioning,
      teardown: {
        ...(labProvisioningSection().teardown as object),
        shutdownTimeout: '2s',
        cleanupAttempts: 2,
        ...(options.provisioning?.teardown as object),
      },
    },
  };
  const env = {
    PROXMOX_TOKEN_SECRET: credentials.tokenSecret,
    NETBOX_TOKEN: netbox.tokenV2,
    FERRY_DNS_TSIG_SECRET: bind.key.secret,
  };
  const config = parseConfig(document, env, 'provision lab');
  const deps = await createDependencies(config);
  const admin = new SimulatorAdmin(pve.url, pve.caFile, { id: credentials.tokenId, secret: credentials.tokenSecret });
  return {
    stateDir,
    pve,
    admin,
    netbox,
    nb,
    bind,
    seeded,
    knownHostsFile,
    document,
    env,
    config,
    deps,
    async tag(slug) {
      const [found] = await nb.http.list('api/extras/tags/', { slug }, idOnly);
      if (!found) await nb.http.request('POST', 'api/extras/tags/', { schema: idOnly, body: { name: slug, slug } });
      return slug;
    },
    async plannedVm(spec) {
      const name = spec.name ?? uniqueName('vm').toLowerCase();
      const { data } = await nb.http.request('POST', 'api/virtualization/virtual-machines/', {
        schema: idOnly,
        body: {
          name,
          status: spec.status ?? 'planned',
          cluster: seeded.clusterId,
          site: seeded.siteId,
          vcpus: spec.vcpus ?? 2,
          memory: spec.memory ?? 1024,
          disk: spec.disk ?? 4096,
          tags: (spec.tags ?? [LAB_NETBOX.tag.slug]).map((slug) => ({ slug })),
          custom_fields: {
            ferry_node: 'pve1',
            ferry_storage: 'local-lvm',
            ferry_network: 'vmbr0',
            ferry_iso: `local:iso/${SAMPLE_ISO}`,
            ...spec.fields,
          },
        },
      });
      return { id: data.id, name };
    },
    async stop() {
      await deps.proxmox?.close();
      await deps.netbox?.close();
      await nb.close();
      await admin.close();
      await Promise.all([pve.stop(), netbox.stop(), bind.stop()]);
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

export interface RunningWorkers {
  taskQueue: string;
  stop(): Promise<void>;
}

/**
 * Workers for a fresh main queue and its heavy queues with the real activities, running until
 * `stop()` (for test files that start many workflows over several tests).
 */
export async function runWorkers(
  connection: NativeConnection,
  deps: ActivityDeps,
  prefix = 'prov',
): Promise<RunningWorkers> {
  const taskQueue = uniqueName(prefix);
  const activities = createActivities(deps);
  const workers = await Promise.all([
    createTestWorker(connection, { taskQueue, activities }),
    createTestWorker(connection, { taskQueue: coordinationQueue(taskQueue), activities }),
    ...(['vmotion', 'import', 'sdn'] as const).map((work) =>
      createTestWorker(connection, { taskQueue: heavyQueue(taskQueue, work), activities, workflowBundle: undefined }),
    ),
  ]);
  const running = Promise.all(workers.map((w) => w.run()));
  return {
    taskQueue,
    async stop() {
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
      await running;
    },
  };
}

export interface ProvisionSuite {
  temporal: TestTemporal;
  lab: ProvisionLab;
  workers: RunningWorkers;
}

/**
 * A test file's provisioning lab, Temporal connection and workers, started before its tests and
 * stopped after them; read the fields inside tests.
 */
export function useProvisionLab(prefix: string, options: ProvisionLabOptions = {}): ProvisionSuite {
  const suite = {} as ProvisionSuite;
  beforeAll(async () => {
    suite.temporal = await connectTestTemporal();
    suite.lab = await startProvisionLab(options);
    suite.workers = await runWorkers(suite.temporal.nativeConnection, suite.lab.deps, prefix);
  });
  afterAll(async () => {
    await suite.workers?.stop();
    await suite.lab?.stop();
    await suite.temporal?.close();
  });
  return suite;
}

/** A NetBox VM provisioned by `provisionVm` on the suite's workers, as day 2 finds a built VM. */
export async function provisionedVm(
  suite: ProvisionSuite,
  spec: Parameters<ProvisionLab['plannedVm']>[0] = {},
  options: { start?: boolean } = {},
): Promise<{ id: number; vmid: number; name: string }> {
  const { id, name } = await suite.lab.plannedVm({ vcpus: 2, memory: 2048, disk: 4096, ...spec });
  const built = await suite.temporal.client.workflow.execute<typeof provisionVm>('provisionVm', {
    taskQueue: suite.workers.taskQueue,
    workflowId: `${suite.workers.taskQueue}-${provisionWorkflowId({ netboxId: id })}`,
    args: [{ netboxId: id, start: options.start ?? true }],
  });
  return { id, name, vmid: (built as ProvisionResult).vmid! };
}

/** `ferry …` as a person runs it, against the suite's Temporal and task queue (no ferry.yaml): exit code and output. */
export function ferryOn(
  suite: ProvisionSuite,
): (...args: string[]) => Promise<{ code: number | null; output: string }> {
  return async (...args) => {
    const cli = spawnFerry(args, {
      FERRY_CONFIG: '',
      TEMPORAL_ADDRESS: devServerAddress(),
      FERRY_TASK_QUEUE: suite.workers.taskQueue,
    });
    const code = await cli.exited;
    return { code, output: cli.output() };
  };
}
