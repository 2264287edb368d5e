/**
 * Benchmark: provisions N NetBox VMs (default 400) in status `planned` through one `provisionPlanned`
 * run, against the Proxmox simulator at the lab's latencies, real NetBox and BIND, with the default
 * settings (provisioning.maxConcurrent and the worker's defaults). ferry's real worker runs as its own
 * process, so its CPU is its own. Prints the makespan, per-VM p50/p99 and the worker's CPU and RSS.
 *
 *   npm run bench:provision [-- --vms 400 --max-concurrent 10 --cpu-prof DIR]
 *
 * It prints figures; it is not a test.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { startDevServer } from '../lab/temporal-dev-server';
import { startProvisionLab, type ProvisionLab } from '../test/helpers/provision-lab';
import { startWorkerProcess } from '../test/helpers/worker-process';
import type { provisionPlanned } from '../workflows/provision-planned';
import { ms, percentile } from './lib/percentiles';
import { mib, processStats } from './lib/process-stats';
import { writeWorkflowBundle } from '../worker/workflow-bundle';

const { values: args } = parseArgs({ options: { vms: { type: 'string', default: '400' }, 'max-concurrent': { type: 'string' }, 'cpu-prof': { type: 'string' } } });
const N = Number(args.vms);

async function main(): Promise<void> {
  const server = await startDevServer();
  process.env.FERRY_TEST_TEMPORAL_ADDRESS = server.address;
  const lab = await startProvisionLab().catch(async (err: unknown) => {
    await server.stop();
    throw err;
  });
  try {
    await run(server.address, lab);
  } finally {
    await lab.stop();
    await server.stop();
  }
}

async function run(address: string, lab: ProvisionLab): Promise<void> {
  const stamp = Date.now();
  const taskQueue = `bench-prov-${stamp}`;
  const bundleFile = path.join(lab.stateDir, 'workflow-bundle.js');
  await writeWorkflowBundle(bundleFile);
  const worker = await startWorkerProcess({
    config: { ...lab.document, worker: { taskQueue, shutdownGraceTime: '1s' } },
    configFile: path.join(lab.stateDir, 'ferry.yaml'),
    env: { ...lab.env, FERRY_WORKFLOW_BUNDLE: bundleFile },
    nodeArgs: cpuProfile(),
    name: 'bench',
  });
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  try {
    const tag = await lab.tag(`bench-${stamp}`);
    const queue = Array.from({ length: N }, (_, i) => i);
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = queue.shift(); i !== undefined; i = queue.shift()) await lab.plannedVm({ name: `bench-${stamp}-${i}`, tags: [tag] });
      }),
    );
    const pid = worker.child.pid!;
    const before = processStats(pid);
    let peakRss = before.rssBytes;
    const rssSampler = setInterval(() => (peakRss = Math.max(peakRss, processStats(pid).rssBytes)), 250);
    const started = performance.now();
    const result = await client.workflow.execute<typeof provisionPlanned>('provisionPlanned', {
      taskQueue,
      workflowId: `bench-provision-${stamp}`,
      args: [{ tag, ...(args['max-concurrent'] ? { maxConcurrent: Number(args['max-concurrent']) } : {}) }],
    });
    const makespanMs = performance.now() - started;
    clearInterval(rssSampler);
    const after = processStats(pid);
    const perVm: number[] = [];
    for (const vm of result.vms) {
      const d = await client.workflow.getHandle(vm.workflowId).describe();
      if (d.closeTime) perVm.push(d.closeTime.getTime() - d.startTime.getTime());
    }
    const cpuMs = after.cpuMs - before.cpuMs;
    const provisioned = result.vms.filter((v) => v.outcome === 'provisioned').length;
    console.log(`provisioning ${N} VMs (maxConcurrent ${args['max-concurrent'] ?? 'default'})`);
    console.log(`  provisioned:  ${provisioned}/${result.vms.length}`);
    console.log(`  makespan:     ${(makespanMs / 1000).toFixed(1)} s`);
    console.log(`  per VM:       p50 ${ms(percentile(perVm, 50))}, p99 ${ms(percentile(perVm, 99))}`);
    console.log(`  worker CPU:   ${(cpuMs / 1000).toFixed(1)} s, ${ms(cpuMs / N)} per VM (${((cpuMs / makespanMs) * 100).toFixed(0)}% of one core)`);
    console.log(`  worker RSS:   peak ${mib(peakRss)} during the run`);
  } finally {
    await worker.stop();
    await connection.close();
  }
}

/** --cpu-prof DIR: the worker process profiles itself (V8 .cpuprofile, written when it stops). */
function cpuProfile(): string[] {
  return args['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(args['cpu-prof'])}`] : [];
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
