/**
 * Benchmark: one migration wave of N VMs (default 200) from vcsim to the Proxmox simulator, auto-approved,
 * with set latencies: each storage vMotion takes RELOCATE_MS in vcsim, each disk import IMPORT_MS in
 * the simulator. Prints the makespan, the lower bound the global limits and latencies imply, their
 * ratio, the worker's CPU and memory, and the peak concurrent vMotions and imports the simulators saw.
 *
 *   npm run bench:migration [-- --vms 200 --relocate-ms 3000 --import-ms 3000 --max-concurrent 50]
 *
 * It prints figures; it is not a test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import { parseConfig } from '../src/config';
import { heavyQueue } from '../src/domain/task-queues';
import { startMigrationSims } from '../lab/migration-lab';
import { peakConcurrency } from '../lab/proxmox-sim/admin-client';
import { startDevServer } from '../lab/temporal-dev-server';
import { ESTATE } from '../lab/vcsim/estate';
import { WORKFLOWS_PATH } from '../src/paths';
import { retrieveAll, traversalSpec } from '../src/vsphere/property-collector';
import type { VsphereClient } from '../src/vsphere';
import { createDependencies } from '../worker/dependencies';
import type { migrationWave } from '../workflows/migration-wave';

const { values: args } = parseArgs({
  options: {
    vms: { type: 'string', default: '200' },
    'relocate-ms': { type: 'string', default: '3000' },
    'import-ms': { type: 'string', default: '3000' },
    vmotion: { type: 'string', default: '2' },
    imports: { type: 'string', default: '2' },
    'max-concurrent': { type: 'string', default: '50' },
  },
});
const N = Number(args.vms);
const RELOCATE_MS = Number(args['relocate-ms']);
const IMPORT_MS = Number(args['import-ms']);
const VMOTION = Number(args.vmotion);
const IMPORTS = Number(args.imports);

interface Interval {
  startMs: number;
  endMs?: number;
}

/** vcsim keeps its last 200 tasks: sample them while the wave runs and keep every RelocateVm. */
function sampleRelocations(client: VsphereClient): { stop(): Promise<Map<string, Interval>> } {
  const seen = new Map<string, Interval>();
  let running = true;
  const loop = (async () => {
    while (running) {
      const { objects } = await retrieveAll(client.session, [
        {
          propSet: [{ type: 'Task', pathSet: ['info.name', 'info.startTime', 'info.completeTime'] }],
          objectSet: [{ obj: { type: 'TaskManager', value: 'TaskManager' }, skip: true, selectSet: [traversalSpec('recent', 'TaskManager', 'recentTask')] }],
        },
      ]);
      for (const o of objects) {
        if (o.props.get('info.name')?.text.trim() !== 'RelocateVm') continue;
        const start = Date.parse(o.props.get('info.startTime')?.text.trim() ?? '');
        const end = o.props.get('info.completeTime')?.text.trim();
        seen.set(o.obj.value, { startMs: start, endMs: end ? Date.parse(end) : undefined });
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return seen;
    },
  };
}

function peak(intervals: Interval[]): number {
  return peakConcurrency(
    intervals.map((i) => ({ upid: '', node: '', type: '', id: '', user: '', imports: 1, startMs: i.startMs, endMs: i.endMs })),
    () => true,
  );
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });
  const stateDir = mkdtempSync(path.join(tmpdir(), 'ferry-bench-'));
  const server = await startDevServer();
  const sims = await startMigrationSims({
    stateDir,
    extraVms: N,
    temporalAddress: server.address,
    vcenterName: `bench-${Date.now()}`,
    methodDelay: { RelocateVm: RELOCATE_MS, LockHandoff: 0 },
    sim: { importTaskMs: IMPORT_MS },
    limits: { vmotion: VMOTION, importPerStorage: IMPORTS },
  });
  const config = parseConfig(sims.document, sims.env, 'benchmark');
  const deps = await createDependencies(config);
  const connection = await NativeConnection.connect({ address: server.address });
  const clientConnection = await Connection.connect({ address: server.address });
  const client = new Client({ connection: clientConnection });
  const taskQueue = 'bench';
  const activities = createActivities(deps);
  const bundle = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: new DefaultLogger('WARN') });
  const workers = await Promise.all([
    Worker.create({ connection, taskQueue, workflowBundle: bundle, activities, maxConcurrentActivityTaskExecutions: 100, maxConcurrentWorkflowTaskExecutions: 40 }),
    ...(['vmotion', 'import', 'sdn'] as const).map((w) =>
      Worker.create({ connection, taskQueue: heavyQueue(taskQueue, w), activities, maxConcurrentActivityTaskExecutions: 8 }),
    ),
  ]);
  const running = workers.map((w) => w.run());

  try {
    const memory = { peakRssBytes: 0 };
    const rssSampler = setInterval(() => (memory.peakRssBytes = Math.max(memory.peakRssBytes, process.memoryUsage().rss)), 250);
    const sampler = sampleRelocations(deps.vsphere!);
    await sims.admin.clearLog();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const waveStart = Date.now();
    const result = await client.workflow.execute<typeof migrationWave>('migrationWave', {
      taskQueue,
      workflowId: `bench-wave-${Date.now()}`,
      args: [
        {
          waveId: 'bench',
          selection: { folder: `/${ESTATE.datacenter}/vm/${ESTATE.scaleFolder}` },
          maxConcurrent: Number(args['max-concurrent']),
          autoApprove: { by: 'lab-admin', reason: 'benchmark' },
        },
      ],
    });
    const makespanMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    clearInterval(rssSampler);
    const relocations = [...(await sampler.stop()).values()];
    const imports = (await sims.admin.log()).tasks.filter((t) => t.imports > 0);

    const migrated = result.status.vms.filter((v) => v.outcome === 'migrated').length;
    // Two stages through two limited pools: every vMotion, then at least one import after the last;
    // or one vMotion, then every import.
    const lowerBoundMs = Math.max((N * RELOCATE_MS) / VMOTION + IMPORT_MS, RELOCATE_MS + (N * IMPORT_MS) / IMPORTS);
    console.log(`wave of ${N} VMs (vMotion ${RELOCATE_MS} ms each, limit ${VMOTION}; import ${IMPORT_MS} ms each, limit ${IMPORTS})`);
    console.log(`  migrated:                 ${migrated}/${result.status.vms.length}`);
    console.log(`  makespan:                 ${(makespanMs / 1000).toFixed(1)} s`);
    console.log(`  lower bound:              ${(lowerBoundMs / 1000).toFixed(1)} s`);
    console.log(`  ratio:                    ${(makespanMs / lowerBoundMs).toFixed(3)}`);
    console.log(`  worker CPU (user+system): ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s (${(((cpu.user + cpu.system) / 1e3 / makespanMs) * 100).toFixed(0)}% of one core)`);
    console.log(`  worker peak RSS:          ${(memory.peakRssBytes / 2 ** 20).toFixed(0)} MiB`);
    console.log(`  peak concurrent vMotions: ${peak(relocations)} (of ${relocations.length} seen by vcsim)`);
    console.log(`  peak concurrent imports:  ${peakConcurrency(imports, () => true)} (of ${imports.length} seen by the Proxmox simulator)`);
    console.log('  (the worker runs in this process: CPU and memory include the client and the samplers)');
    const span = (xs: Interval[]) => {
      const start = Math.min(...xs.map((x) => x.startMs));
      const end = Math.max(...xs.map((x) => x.endMs ?? x.startMs));
      const busy = xs.reduce((sum, x) => sum + ((x.endMs ?? x.startMs) - x.startMs), 0);
      return `${((start - waveStart) / 1000).toFixed(1)} s → ${((end - waveStart) / 1000).toFixed(1)} s after the start, busy ${(busy / 1000).toFixed(1)} s`;
    };
    console.log(`  vMotions ran from         ${span(relocations)}`);
    console.log(`  imports ran from          ${span(imports)}`);
  } finally {
    for (const w of workers) w.shutdown();
    await Promise.allSettled(running);
    await connection.close();
    await clientConnection.close();
    await deps.vsphere?.close().catch(() => undefined);
    await deps.proxmox?.close();
    await deps.proxmoxPrivileged?.close();
    await sims.stop();
    await server.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
