import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type NativeConnection, Worker } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../../activities';
import { parseConfig, type FerryConfig } from '../../src/config';
import { labMigrationSection } from '../../src/lab/migration-lab';
import { SimulatorAdmin } from '../../src/lab/proxmox-sim/admin-client';
import type { SimSettings } from '../../src/lab/proxmox-sim/cluster';
import { sampleCluster, sampleCredentials } from '../../src/lab/proxmox-sim/sample-cluster';
import { startProxmoxSimulator, type ProxmoxSimulator } from '../../src/lab/proxmox-sim/server';
import { startVcsimLab, type VcsimLab } from '../../src/lab/vcsim/vcsim-lab';
import { heavyQueue } from '../../src/domain/task-queues';
import { createDependencies } from '../../src/worker/dependencies';
import { devServerAddress, uniqueName, workflowBundlePath } from './temporal';
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

/**
 * The Proxmox simulator and vcsim (with the lab estate) sharing one state folder, so the NFS datastore
 * `nfs-migration` is one folder for both, and the worker dependencies to drive them.
 */
export async function startMigrationLab(options: MigrationLabOptions = {}): Promise<MigrationLab> {
  const stateDir = mkdtempSync(path.join(tmpdir(), 'ferry-migration-'));
  const credentials = sampleCredentials();
  const pve = await startProxmoxSimulator({
    ...sampleCluster(stateDir, '9.1', credentials),
    settings: { resourcesLagMs: 300, createTaskMs: 50, taskMs: 20, authFailureDelayMs: 50, ...options.sim },
  });
  const vcsim = await startVcsimLab({ stateDir, extraVms: TEST_EXTRA_VMS, methodDelay: options.methodDelay });
  const document: Record<string, unknown> = {
    temporal: { address: devServerAddress() },
    proxmox: { host: pve.host, port: pve.port, user: credentials.tokenUser, tokenId: credentials.tokenName, validateCerts: true, caFile: pve.caFile },
    // A vCenter name of its own, so workflow ids (migrate-<vcenter>-<moid>) never meet another test's.
    vsphere: { ...vcsim.config, name: uniqueName('vc'), discovery: { datacenter: 'DC0' } },
    migration: { ...labMigrationSection(stateDir), ...options.migration },
    limits: { vmotion: 2, importPerStorage: 2, ...options.limits },
  };
  const env = {
    PROXMOX_TOKEN_SECRET: credentials.tokenSecret,
    PROXMOX_PRIVILEGED_PASSWORD: credentials.rootPassword,
    VMWARE_PASSWORD: vcsim.password,
  };
  const config = parseConfig(document, env, 'migration lab');
  const deps = await createDependencies(config);
  const admin = new SimulatorAdmin(pve.url, pve.caFile, { id: credentials.tokenId, secret: credentials.tokenSecret });
  return {
    stateDir,
    pve,
    admin,
    vcsim,
    document,
    env,
    config,
    deps,
    async stop() {
      await deps.vsphere?.close().catch(() => undefined);
      await deps.proxmox?.close();
      await deps.proxmoxPrivileged?.close();
      await admin.close();
      await vcsim.stop();
      await pve.stop();
      rmSync(stateDir, { recursive: true, force: true });
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
    Worker.create({ connection, taskQueue, workflowBundle: { codePath: workflowBundlePath() }, activities, shutdownGraceTime: '1s' }),
    ...(['vmotion', 'import', 'sdn'] as const).map((work) =>
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
