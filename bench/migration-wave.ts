/**
 * Benchmark: one migration wave of N VMs (default 200) from vcsim to the Proxmox simulator, with set
 * latencies: each storage vMotion takes --relocate-ms in vcsim, each disk import --import-ms in the
 * simulator (--latency sets both). ferry's real worker runs as its own process (worker.ts), the
 * simulators and the Temporal dev server in theirs, so the worker's CPU and memory are its own.
 *
 * Auto-approved (default): prints makespan / lower bound, the permit hand-offs (a slot freed → the next
 * holder's activity started) p50/p99, worker CPU per VM and the worker's peak RSS.
 * --no-approve: every VM stops at the cutover gate; prints the worker's RSS once all N wait there.
 *
 *   npm run bench:migration [-- --vms 200 --latency 3000 --vmotion 2 --imports 2 --max-concurrent 50]
 *   (--cpu-prof DIR: the worker writes a V8 CPU profile there when it stops; --heap-snapshot DIR: a
 *   heap snapshot once all wait at the gate; --no-shared-modules: the bundle without shared modules;
 *   --compiled: the worker as the container runs it, dist/worker.js, instead of worker.ts through tsx;
 *   --allocator glibc: without jemalloc, which bin/ferry-worker preloads; --max-workflow-tasks N;
 *   --node-args "...": node options for the worker, e.g. "--max-semi-space-size=4")
 *   npm run bench:migration -- --vms 1000 --no-approve --latency 100 --vmotion 20 --max-concurrent 1000
 *
 * It prints figures; it is not a test.
 */
import { coordinationQueue } from '../src/domain/task-queues';
import { unpackWaveStatus } from '../src/domain/migration';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { parseConfig } from '../src/config';
import { REPO_ROOT } from '../src/paths';
import { VsphereClient } from '../src/vsphere';
import { startMigrationSims } from '../lab/migration-lab';
import { startDevServer } from '../lab/temporal-dev-server';
import { ESTATE } from '../lab/vcsim/estate';
import { startWorkerProcess } from '../test/helpers/worker-process';
import { allocatorEnv } from './lib/allocator';
import type { migrationWave } from '../workflows/migration-wave';
import {
  activityUses,
  eventMs,
  eventsAfter,
  handoffs,
  handoffSteps,
  keyedUses,
  permitUses,
  withRequests,
  type HandoffSteps,
  type Use,
} from './lib/handoffs';
import { ms, percentile } from './lib/percentiles';
import { mib, processStats } from './lib/process-stats';
import { sampleRelocations } from './lib/vcsim-relocations';
import { writeWorkflowBundle } from '../worker/workflow-bundle';

/** labMigrationSection's vmidBase: a VM's VMID is it plus the number in its moid. */
const LAB_VMID_BASE = 20000;

const { values: args } = parseArgs({
  options: {
    vms: { type: 'string', default: '200' },
    latency: { type: 'string' },
    'relocate-ms': { type: 'string', default: '3000' },
    'import-ms': { type: 'string', default: '3000' },
    vmotion: { type: 'string', default: '2' },
    imports: { type: 'string', default: '2' },
    'max-concurrent': { type: 'string', default: '50' },
    'no-approve': { type: 'boolean', default: false },
    'max-cached': { type: 'string' },
    'max-workflow-tasks': { type: 'string' },
    'node-args': { type: 'string' },
    'cpu-prof': { type: 'string' },
    'heap-snapshot': { type: 'string' },
    'no-shared-modules': { type: 'boolean', default: false },
    compiled: { type: 'boolean', default: false },
    'no-stack-traces': { type: 'boolean', default: false },
    allocator: { type: 'string', default: 'jemalloc' },
  },
});
const N = Number(args.vms);
const RELOCATE_MS = Number(args.latency ?? args['relocate-ms']);
const IMPORT_MS = Number(args.latency ?? args['import-ms']);
const VMOTION = Number(args.vmotion);
const IMPORTS = Number(args.imports);
const APPROVE = !args['no-approve'];
let stopping = false;

async function main(): Promise<void> {
  const stateDir = mkdtempSync(path.join(tmpdir(), 'ferry-bench-'));
  const server = await startDevServer();
  const stamp = Date.now();
  const sims = await startMigrationSims({
    stateDir,
    extraVms: N,
    temporalAddress: server.address,
    vcenterName: `bench-${stamp}`,
    methodDelay: { RelocateVm: RELOCATE_MS, LockHandoff: 0 },
    sim: { importTaskMs: IMPORT_MS },
    limits: { vmotion: VMOTION, importPerStorage: IMPORTS },
  });
  const taskQueue = `bench-${stamp}`;
  // Bundled here, as production prebuilds it: webpack in the worker would add its own memory.
  const bundleFile = path.join(stateDir, 'workflow-bundle.js');
  const bundled = writeWorkflowBundle(bundleFile, undefined, !args['no-shared-modules']);
  const worker = await bundled
    .then(() =>
      startWorkerProcess({
        config: {
          ...sims.document,
          worker: {
            taskQueue,
            shutdownGraceTime: '1s',
            ...(args['max-cached'] ? { maxCachedWorkflows: Number(args['max-cached']) } : {}),
            ...(args['max-workflow-tasks']
              ? { maxConcurrentWorkflowTaskExecutions: Number(args['max-workflow-tasks']) }
              : {}),
            workflowStackTraces: !args['no-stack-traces'],
            taskQueues: {
              main: { maxConcurrentActivities: 100 },
              vmotion: { maxConcurrentActivities: 8 },
              import: { maxConcurrentActivities: 8 },
              sdn: { maxConcurrentActivities: 1 },
            },
          },
        },
        configFile: path.join(stateDir, 'ferry.yaml'),
        env: { ...sims.env, FERRY_WORKFLOW_BUNDLE: bundleFile, ...allocatorEnv(args.allocator) },
        nodeArgs: cpuProfile(),
        compiled: args.compiled,
        name: 'bench',
      }),
    )
    .catch(async (err: unknown) => {
      await sims.stop();
      await server.stop();
      rmSync(stateDir, { recursive: true, force: true });
      throw err;
    });
  const clientConnection = await Connection.connect({ address: server.address });
  const client = new Client({ connection: clientConnection });
  const pid = worker.child.pid!;
  // A worker that dies mid-run says why (its output is otherwise only kept in memory).
  worker.child.once('exit', (code, signal) => {
    if (!stopping) console.error(`worker exited (${code ?? signal}):\n${worker.output().slice(-4000)}`);
  });
  const config = parseConfig(sims.document, sims.env, 'benchmark');
  const vsphere = new VsphereClient(config.vsphere!);
  try {
    const idle = processStats(pid);
    let peakRss = idle.rssBytes;
    // A worker that died must not crash the benchmark before it stops the simulators and the server.
    const rssSampler = setInterval(
      () => workerAlive(worker.child) && (peakRss = Math.max(peakRss, processStats(pid).rssBytes)),
      250,
    );
    const sampler = sampleRelocations(vsphere);
    await sims.admin.clearLog();
    const waveId = `bench-${stamp}`;
    const started = performance.now();
    const wave = await client.workflow.start<typeof migrationWave>('migrationWave', {
      taskQueue: coordinationQueue(taskQueue),
      workflowId: `bench-wave-${stamp}`,
      args: [
        {
          waveId,
          selection: { folder: `/${ESTATE.datacenter}/vm/${ESTATE.scaleFolder}` },
          maxConcurrent: Number(args['max-concurrent']),
          ...(APPROVE ? { autoApprove: { by: 'lab-admin', reason: 'benchmark' } } : {}),
        },
      ],
    });
    console.log(
      `wave of ${N} VMs (vMotion ${RELOCATE_MS} ms each, limit ${VMOTION}; import ${IMPORT_MS} ms each, limit ${IMPORTS})`,
    );
    console.log(
      `  worker (pid ${pid}) before the wave: RSS ${mib(idle.rssBytes)}, CPU ${(idle.cpuMs / 1000).toFixed(1)} s since start${workerSettings()}`,
    );
    if (!APPROVE) {
      await reportGate(client, waveId, worker.child, started);
      timeStatus(waveId, path.join(stateDir, 'ferry.yaml'), sims.env);
      clearInterval(rssSampler);
      await wave.terminate('benchmark done');
      await sampler.stop();
      return;
    }
    const status = unpackWaveStatus((await wave.result()).status);
    const makespanMs = performance.now() - started;
    clearInterval(rssSampler);
    const after = processStats(pid);
    const relocations = keyedUses([...(await sampler.stop())]);
    const imports = keyedUses(
      (await sims.admin.log()).tasks
        .filter((t) => t.imports > 0)
        .map((t) => [t.id, { startMs: t.startMs, endMs: t.endMs ?? t.startMs }]),
    );
    const histories = await vmHistories(client, waveId);
    const historyUses = (activity: string, key: (moid: string) => string) =>
      keyedUses(
        [...histories].flatMap(([moid, events]) =>
          activityUses(events, activity).map((u): [string, Use] => [key(moid), u]),
        ),
      );

    const migrated = status.vms.filter((v) => v.outcome === 'migrated').length;
    // Two stages through two limited pools: every vMotion, then at least one import after the last;
    // or one vMotion, then every import.
    const lowerBoundMs = Math.max((N * RELOCATE_MS) / VMOTION + IMPORT_MS, RELOCATE_MS + (N * IMPORT_MS) / IMPORTS);
    const cpuMs = after.cpuMs - idle.cpuMs;
    console.log(`  migrated:                 ${migrated}/${status.vms.length}`);
    console.log(`  makespan:                 ${(makespanMs / 1000).toFixed(1)} s`);
    console.log(`  lower bound:              ${(lowerBoundMs / 1000).toFixed(1)} s`);
    console.log(`  ratio:                    ${(makespanMs / lowerBoundMs).toFixed(3)}`);
    console.log(
      `  worker CPU:               ${(cpuMs / 1000).toFixed(1)} s, ${ms(cpuMs / N)} per VM (${((cpuMs / makespanMs) * 100).toFixed(0)}% of one core)`,
    );
    console.log(
      `  worker peak RSS:          ${mib(peakRss)} during the wave (VmHWM since start ${mib(after.peakRssBytes)})`,
    );
    printHandoffs(
      'vMotion',
      relocations,
      historyUses('relocateVm', (moid) => moid),
      VMOTION,
    );
    printHandoffSteps(histories, 'relocateVm', VMOTION);
    printHandoffs(
      'import',
      imports,
      historyUses('importDisk', (moid) => String(LAB_VMID_BASE + Number(/\d+$/.exec(moid)?.[0]))),
      IMPORTS,
    );
    printHandoffSteps(histories, 'importDisk', IMPORTS);
    printTail(histories, makespanMs, started);
  } finally {
    stopping = true;
    await worker.stop();
    await vsphere.close().catch(() => undefined);
    await clientConnection.close();
    await sims.stop();
    await server.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

function printHandoffs(what: string, simUses: Map<string, Use>, historyUses: Map<string, Use>, permits: number): void {
  // A slot that freed while nobody waited (the VMs were elsewhere in their itinerary) is not a hand-off.
  const sim = handoffs(withRequests(simUses, historyUses), permits);
  const hist = handoffs([...historyUses.values()], permits);
  console.log(`  ${what} hand-offs:`);
  console.log(
    `    simulator task end → next task start:  p50 ${ms(percentile(sim, 50))}, p99 ${ms(percentile(sim, 99))} (${sim.length})`,
  );
  console.log(
    `    activity completed → next started:     p50 ${ms(percentile(hist, 50))}, p99 ${ms(percentile(hist, 99))} (${hist.length}, from histories)`,
  );
  const uses = [...simUses.values()];
  const start = Math.min(...uses.map((x) => x.startMs));
  const end = Math.max(...uses.map((x) => x.endMs));
  console.log(`    ${uses.length} tasks ran over ${((end - start) / 1000).toFixed(1)} s`);
}

/** Where a hand-off's time goes, step by step across the two holders' histories: p50 / p99 of each. */
function printHandoffSteps(histories: Histories, activity: string, permits: number): void {
  const steps = handoffSteps(
    [...histories.values()].flatMap((events) => permitUses(events, activity)),
    permits,
  );
  const names: Array<[keyof HandoffSteps, string]> = [
    ['release', 'completed → release sent'],
    ['deliver', 'release sent → delivered'],
    ['grant', 'delivered → next holder granted'],
    ['schedule', 'granted → next activity scheduled'],
    ['dispatch', 'scheduled → started'],
  ];
  for (const [step, label] of names) {
    const values = steps.map((s) => s[step]).filter((v): v is number => v !== undefined);
    console.log(
      `      ${label.padEnd(36)} p50 ${ms(percentile(values, 50))}, p99 ${ms(percentile(values, 99))} (${values.length})`,
    );
  }
}

/** Waits until all N VM workflows wait at the cutover gate, then prints the worker's memory and CPU. */
function workerAlive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

async function reportGate(client: Client, waveId: string, child: ChildProcess, started: number): Promise<void> {
  const pid = child.pid!;
  const query = `WaveId = '${waveId}' AND FerryStage = 'awaiting-approval' AND ExecutionStatus = 'Running'`;
  const before = processStats(pid);
  let waiting = 0;
  // A VM the wave finishes without starting (e.g. refused) never reaches the gate: stop once every
  // started VM waits there and that has not changed for a minute.
  for (let unchangedSince = performance.now(); waiting < N && performance.now() - unchangedSince < 60_000;) {
    await new Promise((r) => setTimeout(r, 2000));
    if (!workerAlive(child)) throw new Error('the worker died before the VMs reached the gate (its output is above)');
    const count = (await client.workflow.count(query)).count;
    const begun = (await client.workflow.count(`WaveId = '${waveId}' AND FerryKind = 'migrate'`)).count;
    if (count !== waiting || begun !== count) unchangedSince = performance.now();
    waiting = count;
    const now = processStats(pid);
    console.log(
      `  ${((performance.now() - started) / 1000).toFixed(0)} s: ${waiting}/${N} at the gate (${begun} started), worker RSS ${mib(now.rssBytes)}`,
    );
  }
  // Let the cache settle (evictions) and the last tasks finish.
  await new Promise((r) => setTimeout(r, 10_000));
  const at = processStats(pid);
  console.log(`  ${waiting} of ${N} at the gate after ${((performance.now() - started) / 1000).toFixed(0)} s`);
  console.log(
    `  worker RSS at the gate:   ${mib(at.rssBytes)} (peak since start ${mib(at.peakRssBytes)}; anonymous ${mib(at.rssAnonBytes)}, file ${mib(at.rssFileBytes)}, ${at.threads} threads)`,
  );
  console.log(`  worker CPU to the gate:   ${ms((at.cpuMs - before.cpuMs) / waiting)} per VM`);
  if (args['heap-snapshot']) {
    // The worker writes it on SIGUSR2 (--heapsnapshot-signal); give it time, it pauses the process.
    process.kill(pid, 'SIGUSR2');
    await new Promise((r) => setTimeout(r, 30_000));
    console.log(`  heap snapshot written to ${path.resolve(args['heap-snapshot'])}`);
  }
}

/** `ferry status <wave>` as an operator runs it (compiled CLI), three times: the median wall time. */
function timeStatus(waveId: string, configFile: string, env: Record<string, string>): void {
  const times: number[] = [];
  let output = '';
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const run = spawnSync(
      process.execPath,
      [path.join(REPO_ROOT, 'bin', 'ferry.js'), '-c', configFile, 'status', waveId],
      { env: { ...process.env, ...env }, encoding: 'utf8' },
    );
    times.push(performance.now() - t0);
    output = run.status === 0 ? '' : `exit ${run.status}: ${(run.stderr || run.stdout).slice(0, 500)}`;
  }
  console.log(`  ferry status <wave>:      ${ms(percentile(times, 50))} median of 3${output ? ` (${output})` : ''}`);
}

type Histories = Map<
  string,
  Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>['events'] & object
>;

/** The VM workflows' histories, by VM moid (their ids end in it). */
async function vmHistories(client: Client, waveId: string): Promise<Histories> {
  const histories: Histories = new Map();
  for await (const wf of client.workflow.list({ query: `WaveId = '${waveId}' AND FerryKind = 'migrate'` })) {
    histories.set(
      /vm-\d+$/.exec(wf.workflowId)?.[0] ?? wf.workflowId,
      (await client.workflow.getHandle(wf.workflowId).fetchHistory()).events ?? [],
    );
  }
  return histories;
}

/** What the VM whose import ended last did until the wave returned: the tail of the makespan. */
function printTail(histories: Histories, makespanMs: number, startedPerf: number): void {
  let last: { moid: string; endMs: number } | undefined;
  for (const [moid, events] of histories) {
    for (const use of activityUses(events, 'importDisk'))
      if (!last || use.endMs > last.endMs) last = { moid, endMs: use.endMs };
  }
  if (!last) return;
  const waveEndMs = Date.now() - (performance.now() - startedPerf - makespanMs);
  console.log(
    `  after the last import:    ${((waveEndMs - last.endMs) / 1000).toFixed(1)} s until the wave returned; ${last.moid} then did:`,
  );
  const events = histories.get(last.moid)!;
  const lastEventMs = eventMs(events.at(-1)!);
  for (const line of eventsAfter(events, last.endMs)) console.log(`    ${line}`);
  console.log(`    (its workflow closed ${((waveEndMs - lastEventMs) / 1000).toFixed(1)} s before the wave returned)`);
}

/** What shapes the worker's memory besides ferry.yaml: its node options and allocator environment. */
function workerSettings(): string {
  const env = Object.entries({ ...process.env, ...allocatorEnv(args.allocator) })
    .filter(([k, v]) => ['MALLOC_ARENA_MAX', 'LD_PRELOAD', 'NODE_OPTIONS'].includes(k) && v)
    .map(([k, v]) => `${k}=${v}`);
  const settings = [...(args['node-args'] ? [args['node-args']] : []), ...env];
  return settings.length ? `; ${settings.join(' ')}` : '';
}

/** --cpu-prof DIR: the worker profiles itself (V8 .cpuprofile, written when it stops); --heap-snapshot DIR: at the gate. */
function cpuProfile(): string[] {
  const heap = args['heap-snapshot']
    ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${path.resolve(args['heap-snapshot'])}`]
    : [];
  const extra = args['node-args']?.split(/\s+/).filter(Boolean) ?? [];
  return [
    ...extra,
    ...heap,
    ...(args['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(args['cpu-prof'])}`] : []),
  ];
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
