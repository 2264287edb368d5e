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
import { availableParallelism, loadavg } from 'node:os';
import { coordinationQueue } from '../src/domain/task-queues';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { startDevServer } from '../lab/temporal-dev-server';
import { idOnly } from '../src/netbox/schemas';
import { startProvisionLab, type ProvisionLab } from '../test/helpers/provision-lab';
import { startWorkerProcess } from '../test/helpers/worker-process';
import type { provisionPlanned } from '../workflows/provision-planned';
import { rootCauseMessage } from '../cli/workflow-result';
import { eventMs } from './lib/handoffs';
import { ms, percentile } from './lib/percentiles';
import { cpuByCommand, cpuSpent, machineCpu } from './lib/cpu-by-command';
import { mib, processStats } from './lib/process-stats';
import { writeWorkflowBundle } from '../worker/workflow-bundle';
import { formatBreakdown, meanBreakdown, timeBreakdown } from './lib/time-breakdown';

/**
 * Small VMs, placed by ferry over the three nodes (no node in the record or the config): placement
 * checks memory and storage room, and 400 VMs of the default 4 GiB disk and 1 GiB memory on one node
 * do not fit the simulator's sample cluster.
 */
const BENCH_VM = { disk: 256, memory: 256, fields: { ferry_node: null } };

/** A prefix with room for a thousand VMs (the lab's /24 holds 254), from the benchmarking range (RFC 2544). */
const BENCH_PREFIX = '198.18.0.0/22';
const BENCH_REVERSE_ZONE = '18.198.in-addr.arpa';

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
  const lab = await startProvisionLab({
    provisioning: { node: undefined, prefix: BENCH_PREFIX },
    reverseZone: BENCH_REVERSE_ZONE,
  }).catch(async (err: unknown) => {
    await server.stop();
    throw err;
  });
  const compareWith = args['compare-with'] ? path.resolve(args['compare-with']) : undefined;
  await lab.nb.http.request('POST', 'api/ipam/prefixes/', {
    schema: idOnly,
    body: { prefix: BENCH_PREFIX, status: 'active', description: 'bench VMs' },
  });
  const contenders: Contender[] = compareWith
    ? [{ label: `other (${compareWith})`, root: compareWith }, { label: 'this checkout' }]
    : [{ label: 'this checkout' }];
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
        for (let i = queue.shift(); i !== undefined; i = queue.shift())
          await lab.plannedVm({ name: `bench-${stamp}-${i}`, tags: [tag], ...BENCH_VM });
      }),
    );
    const pid = worker.child.pid!;
    const before = processStats(pid);
    const processNames = { [pid]: 'ferry worker', [process.pid]: 'bench + Proxmox simulator' };
    const processesBefore = cpuByCommand(processNames);
    const machineBefore = machineCpu();
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
    const processesAfter = cpuByCommand(processNames);
    const machineAfter = machineCpu();
    const perVm: number[] = [];
    for (const vm of result.vms) {
      // A VM the batch did not start (refused by placement, say) has no workflow.
      const d = await client.workflow
        .getHandle(vm.workflowId)
        .describe()
        .catch(() => undefined);
      if (d?.closeTime) perVm.push(d.closeTime.getTime() - d.startTime.getTime());
    }
    const cpuMs = after.cpuMs - before.cpuMs;
    const provisioned = result.vms.filter((v) => v.outcome === 'provisioned').length;
    console.log(
      `provisioning ${N} VMs (maxConcurrent ${args['max-concurrent'] ?? 'default'}), round ${round}, worker of ${contender.label}, load average ${loadavg()[0]!.toFixed(1)}`,
    );
    const outcomes = new Map<string, number>();
    for (const vm of result.vms)
      outcomes.set(vm.outcome ?? 'no outcome', (outcomes.get(vm.outcome ?? 'no outcome') ?? 0) + 1);
    console.log(
      `  provisioned:  ${provisioned}/${result.vms.length} (${[...outcomes].map(([o, n]) => `${n} ${o}`).join(', ')})`,
    );
    const notProvisioned = result.vms.find((v) => v.outcome !== 'provisioned');
    if (notProvisioned)
      console.log(
        `  e.g. not provisioned: ${JSON.stringify(notProvisioned).slice(0, 400)}${await rootCause(client, notProvisioned.workflowId)}`,
      );
    console.log(
      `  makespan:     ${(makespanMs / 1000).toFixed(1)} s, of which ${((await beforeFirstVm(client, `bench-provision-${stamp}`)) / 1000).toFixed(1)} s before the first VM started (selection, placement)`,
    );
    console.log(`  per VM:       p50 ${ms(percentile(perVm, 50))}, p99 ${ms(percentile(perVm, 99))}`);
    console.log(
      `  worker CPU:   ${(cpuMs / 1000).toFixed(1)} s, ${ms(cpuMs / N)} per VM (${((cpuMs / makespanMs) * 100).toFixed(0)}% of one core)`,
    );
    console.log(`  worker RSS:   peak ${mib(peakRss)} during the run`);
    printCpuBudget(
      cpuSpent(processesBefore, processesAfter, 500),
      machineBefore,
      machineAfter,
      makespanMs,
      Math.max(1, perVm.length),
    );
    const done = result.vms.filter((v) => v.outcome === 'provisioned');
    const sample = done.filter((_, i) => i % Math.max(1, Math.floor(done.length / 40)) === 0);
    const histories = await Promise.all(
      sample.map(async (vm) => (await client.workflow.getHandle(vm.workflowId).fetchHistory()).events ?? []),
    );
    console.log(`  per VM, mean of ${sample.length} histories:`);
    for (const line of formatBreakdown(meanBreakdown(histories.map(timeBreakdown)))) console.log(`    ${line}`);
  } finally {
    await worker.stop();
    await connection.close();
  }
}

/**
 * Every process's CPU during the batch, per VM started, and the machine's: the makespan this much work
 * needs at the least on this machine's cores, whatever the code waits on.
 */
function printCpuBudget(
  spent: Array<[string, number]>,
  before: ReturnType<typeof machineCpu>,
  after: ReturnType<typeof machineCpu>,
  makespanMs: number,
  vms: number,
): void {
  const busy = after.busyMs - before.busyMs;
  const cores = availableParallelism();
  console.log(
    `  machine CPU:  ${(busy / 1000).toFixed(1)} s busy of ${((cores * makespanMs) / 1000).toFixed(1)} s on ${cores} cores (${((busy / (cores * makespanMs)) * 100).toFixed(0)}%), ${((after.stealMs - before.stealMs) / 1000).toFixed(1)} s stolen`,
  );
  console.log(`  CPU per VM by process (${vms} VMs started), largest first:`);
  for (const [label, ms] of spent) console.log(`    ${label.padEnd(28)} ${(ms / vms).toFixed(0).padStart(5)} ms`);
  console.log(
    `  so ${vms} VMs need at least ${(busy / cores / 1000).toFixed(1)} s of this machine's ${cores} cores at this CPU per VM`,
  );
}

/** The innermost cause of a failed VM workflow's failure (the batch's entry keeps only the outer message). */
async function rootCause(client: Client, workflowId: string): Promise<string> {
  const failure = await client.workflow
    .getHandle(workflowId)
    .result()
    .then(
      () => undefined,
      (err: unknown) => err,
    );
  return failure === undefined ? '' : `\n    cause: ${rootCauseMessage(failure)}`.slice(0, 600);
}

/** The batch's time from its start to its first child's start: what it spends selecting and placing. */
async function beforeFirstVm(client: Client, workflowId: string): Promise<number> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const firstChild = events.find((e) => e.startChildWorkflowExecutionInitiatedEventAttributes);
  return firstChild && events[0] ? eventMs(firstChild) - eventMs(events[0]) : NaN;
}

/** --cpu-prof DIR: the worker process profiles itself (V8 .cpuprofile, written when it stops). */
function cpuProfile(): string[] {
  return args['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(args['cpu-prof'])}`] : [];
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
