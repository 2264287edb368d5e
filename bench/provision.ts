/**
 * Benchmark: provisions N NetBox VMs (default 400) in status `planned` through one `provisionPlanned`
 * run, against the Proxmox simulator at the lab's latencies, real NetBox and BIND, with the default
 * settings (provisioning.maxConcurrent and the worker's defaults). ferry's real worker runs as its own
 * process, so its CPU is its own. Prints the makespan, per-VM p50/p99 and the worker's CPU and RSS.
 *
 *   npm run bench:provision [-- --vms 400 --max-concurrent 10 --cpu-prof DIR]
 *   npm run bench:provision -- --vms 100 --compare-with ../main-checkout --rounds 2
 *
 * --compare-with runs the same batch with the worker of another checkout (its node_modules in place),
 * alternating with this one's in the same lab, `--rounds` times: before/after in the same minutes.
 *
 * It prints figures; it is not a test.
 */
import { loadavg } from 'node:os';
import { coordinationQueue } from '../src/domain/task-queues';
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
import { formatBreakdown, meanBreakdown, timeBreakdown } from './lib/time-breakdown';

/** Small disks: placement checks the storage's room, and 400 of the default 4 GiB do not fit the simulator's local-lvm. */
const BENCH_DISK_MB = 256;

const { values: args } = parseArgs({
  options: {
    vms: { type: 'string', default: '400' },
    'max-concurrent': { type: 'string' },
    'cpu-prof': { type: 'string' },
    'compare-with': { type: 'string' },
    rounds: { type: 'string', default: '1' },
  },
});
const N = Number(args.vms);

/** A worker to run batches with: this checkout's, or another's (--compare-with, e.g. a worktree of main). */
interface Contender {
  label: string;
  root?: string;
}

async function main(): Promise<void> {
  const server = await startDevServer();
  process.env.FERRY_TEST_TEMPORAL_ADDRESS = server.address;
  const lab = await startProvisionLab().catch(async (err: unknown) => {
    await server.stop();
    throw err;
  });
  const compareWith = args['compare-with'] ? path.resolve(args['compare-with']) : undefined;
  const contenders: Contender[] = compareWith ? [{ label: `other (${compareWith})`, root: compareWith }, { label: 'this checkout' }] : [{ label: 'this checkout' }];
  try {
    // Alternating rounds in one lab: a shared, loaded machine is compared within the same minutes.
    for (let round = 1; round <= Number(args.rounds); round++) {
      for (const contender of contenders) await run(server.address, lab, contender, round);
    }
  } finally {
    await lab.stop();
    await server.stop();
  }
}

async function run(address: string, lab: ProvisionLab, contender: Contender, round: number): Promise<void> {
  const stamp = Date.now();
  const taskQueue = `bench-prov-${stamp}`;
  const bundleFile = path.join(lab.stateDir, 'workflow-bundle.js');
  // The other checkout's worker bundles its own workflows.
  if (!contender.root) await writeWorkflowBundle(bundleFile);
  const worker = await startWorkerProcess({
    config: { ...lab.document, worker: { taskQueue, shutdownGraceTime: '1s' } },
    configFile: path.join(lab.stateDir, `ferry-${stamp}.yaml`),
    env: { ...lab.env, ...(contender.root ? {} : { FERRY_WORKFLOW_BUNDLE: bundleFile }) },
    nodeArgs: cpuProfile(),
    name: 'bench',
    ...(contender.root ? { root: contender.root } : {}),
  });
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  try {
    const tag = await lab.tag(`bench-${stamp}`);
    const queue = Array.from({ length: N }, (_, i) => i);
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = queue.shift(); i !== undefined; i = queue.shift()) await lab.plannedVm({ name: `bench-${stamp}-${i}`, tags: [tag], disk: BENCH_DISK_MB });
      }),
    );
    const pid = worker.child.pid!;
    const before = processStats(pid);
    let peakRss = before.rssBytes;
    const rssSampler = setInterval(() => (peakRss = Math.max(peakRss, processStats(pid).rssBytes)), 250);
    const started = performance.now();
    const result = await client.workflow.execute<typeof provisionPlanned>('provisionPlanned', {
      taskQueue: coordinationQueue(taskQueue),
      workflowId: `bench-provision-${stamp}`,
      args: [{ tag, ...(args['max-concurrent'] ? { maxConcurrent: Number(args['max-concurrent']) } : {}) }],
    });
    const makespanMs = performance.now() - started;
    clearInterval(rssSampler);
    const after = processStats(pid);
    const perVm: number[] = [];
    for (const vm of result.vms) {
      // A VM the batch did not start (refused by placement, say) has no workflow.
      const d = await client.workflow.getHandle(vm.workflowId).describe().catch(() => undefined);
      if (d?.closeTime) perVm.push(d.closeTime.getTime() - d.startTime.getTime());
    }
    const cpuMs = after.cpuMs - before.cpuMs;
    const provisioned = result.vms.filter((v) => v.outcome === 'provisioned').length;
    console.log(`provisioning ${N} VMs (maxConcurrent ${args['max-concurrent'] ?? 'default'}), round ${round}, worker of ${contender.label}, load average ${loadavg()[0]!.toFixed(1)}`);
    const outcomes = new Map<string, number>();
    for (const vm of result.vms) outcomes.set(vm.outcome ?? 'no outcome', (outcomes.get(vm.outcome ?? 'no outcome') ?? 0) + 1);
    console.log(`  provisioned:  ${provisioned}/${result.vms.length} (${[...outcomes].map(([o, n]) => `${n} ${o}`).join(', ')})`);
    const notProvisioned = result.vms.find((v) => v.outcome !== 'provisioned');
    if (notProvisioned) console.log(`  e.g. not provisioned: ${JSON.stringify(notProvisioned).slice(0, 400)}`);
    console.log(`  makespan:     ${(makespanMs / 1000).toFixed(1)} s`);
    console.log(`  per VM:       p50 ${ms(percentile(perVm, 50))}, p99 ${ms(percentile(perVm, 99))}`);
    console.log(`  worker CPU:   ${(cpuMs / 1000).toFixed(1)} s, ${ms(cpuMs / N)} per VM (${((cpuMs / makespanMs) * 100).toFixed(0)}% of one core)`);
    console.log(`  worker RSS:   peak ${mib(peakRss)} during the run`);
    const done = result.vms.filter((v) => v.outcome === 'provisioned');
    const sample = done.filter((_, i) => i % Math.max(1, Math.floor(done.length / 40)) === 0);
    const histories = await Promise.all(sample.map(async (vm) => (await client.workflow.getHandle(vm.workflowId).fetchHistory()).events ?? []));
    console.log(`  per VM, mean of ${sample.length} histories:`);
    for (const line of formatBreakdown(meanBreakdown(histories.map(timeBreakdown)))) console.log(`    ${line}`);
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
