import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type NativeConnection, Worker } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../../activities';
import { parseConfig, type FerryConfig } from '../../src/config';
import { simulatorGuestEndpoints } from '../../lab/guest-endpoints';
import { startMigrationSims } from '../../lab/migration-lab';
import type { SimSettings } from '../../lab/proxmox-sim/cluster';
import type { SimulatorAdmin } from '../../lab/proxmox-sim/admin-client';
import type { ProxmoxSimulator } from '../../lab/proxmox-sim/server';
import type { VcsimLab } from '../../lab/vcsim/vcsim-lab';
import { coordinationQueue, heavyQueue } from '../../src/domain/task-queues';
import { createDependencies } from '../../worker/dependencies';
import { connectTestTemporal, devServerAddress, uniqueName, workflowBundlePath, type TestTemporal } from './temporal';
import { TEST_EXTRA_VMS } from './vcsim';

export interface MigrationLab {
  stateDir: string;
  pve: ProxmoxSimulator;
  admin: SimulatorAdmin;
  vcsim: VcsimLab;
  /** The config document (no secrets) and the secrets, for worker processes. */
  document: Record<string, unknown>;
  env: Record<string, string>;
  config: FerryConfig;
  deps: ActivityDeps;
  stop(): Promise<void>;
}

export interface MigrationLabOptions {
  sim?: Partial<SimSettings>;
  methodDelay?: Record<string, number>;
  migration?: Record<string, unknown>;
  limits?: Record<string, number>;
}

/** The simulators of lab/migration-lab.ts in a fresh folder, and worker dependencies to drive them. */
export async function startMigrationLab(options: MigrationLabOptions = {}): Promise<MigrationLab> {
  const stateDir = mkdtempSync(path.join(tmpdir(), 'ferry-migration-'));
  const sims = await startMigrationSims({
    stateDir,
    extraVms: TEST_EXTRA_VMS,
    temporalAddress: devServerAddress(),
    // A vCenter name of its own, so workflow ids (migrate-<vcenter>-<moid>) never meet another test's.
    vcenterName: uniqueName('vc'),
    ...options,
    // The tests wait for a new VM to show cluster-wide: give /cluster/resources pmxcfs's lag.
    sim: { resourcesLagMs: 300, ...options.sim },
  });
  const config = parseConfig(sims.document, sims.env, 'migration lab');
  // verify-guest's probes reach the lab's guests through the simulator's loopback forwards.
  const deps = { ...(await createDependencies(config)), guestEndpoints: simulatorGuestEndpoints(sims.admin) };
  return {
    stateDir,
    pve: sims.pve,
    admin: sims.admin,
    vcsim: sims.vcsim,
    document: sims.document,
    env: sims.env,
    config,
    deps,
    async stop() {
      await deps.vsphere?.close().catch(() => undefined);
      await deps.proxmox?.close();
      await deps.proxmoxPrivileged?.close();
      await sims.stop();
      // FERRY_TEST_KEEP_STATE=1 keeps the folder (guests' serial logs, QEMU and simulator state) to read after a failure.
      if (process.env.FERRY_TEST_KEEP_STATE) console.log(`kept the migration lab's state in ${stateDir}`);
      else rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

export interface LabWorkers {
  taskQueue: string;
  run<T>(fn: () => Promise<T>): Promise<T>;
}

/** Workers for a fresh main queue and its heavy queues, with the lab's real activities. */
export async function labWorkers(connection: NativeConnection, deps: ActivityDeps): Promise<LabWorkers> {
  const taskQueue = uniqueName('mig');
  const activities = createActivities(deps);
  const workers = await Promise.all([
    Worker.create({
      connection,
      taskQueue,
      workflowBundle: { codePath: workflowBundlePath() },
      activities,
      shutdownGraceTime: '1s',
    }),
    Worker.create({
      connection,
      taskQueue: coordinationQueue(taskQueue),
      workflowBundle: { codePath: workflowBundlePath() },
      activities,
      shutdownGraceTime: '1s',
    }),
    ...(['vmotion', 'import', 'sdn', 'convert', 'datastore'] as const).map((work) =>
      Worker.create({ connection, taskQueue: heavyQueue(taskQueue, work), activities, shutdownGraceTime: '1s' }),
    ),
  ]);
  return {
    taskQueue,
    async run(fn) {
      let chain: () => Promise<unknown> = fn;
      for (const w of workers) {
        const inner = chain;
        chain = () => w.runUntil(inner);
      }
      return (await chain()) as Awaited<ReturnType<typeof fn>>;
    },
  };
}

export interface MigrationSuite {
  temporal: TestTemporal;
  lab: MigrationLab;
}

/**
 * A test file's migration lab and Temporal connection, started before its tests and stopped after
 * them; read the fields inside tests.
 */
export function useMigrationLab(options: MigrationLabOptions = {}): MigrationSuite {
  const suite = {} as MigrationSuite;
  beforeAll(async () => {
    suite.temporal = await connectTestTemporal();
    suite.lab = await startMigrationLab(options);
  });
  afterAll(async () => {
    await suite.lab?.stop();
    await suite.temporal?.close();
  });
  return suite;
}

/**
 * Like useMigrationLab for several labs with different settings, started at once (they share the
 * Temporal connection): for a test file whose scenarios need different simulator delays.
 */
export function useMigrationLabs<T extends MigrationLabOptions[]>(...options: T): { [K in keyof T]: MigrationSuite } {
  const suites = options.map(() => ({}) as MigrationSuite);
  let temporal: TestTemporal | undefined;
  beforeAll(async () => {
    temporal = await connectTestTemporal();
    const started = await Promise.allSettled(options.map((o) => startMigrationLab(o)));
    started.forEach((s, i) => {
      suites[i]!.temporal = temporal!;
      if (s.status === 'fulfilled') suites[i]!.lab = s.value;
    });
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
  });
  afterAll(async () => {
    await Promise.all(suites.map((s) => s.lab?.stop()));
    await temporal?.close();
  });
  return suites as { [K in keyof T]: MigrationSuite };
}
