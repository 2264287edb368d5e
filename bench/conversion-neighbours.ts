/**
 * Benchmark (issue 33): an overlay cutover's downtime holds only the VM's own work and its boot, even
 * while other VMs of the wave are converted. The same wave of ten VMs whose conversion is not planned
 * (the lab's `scale-*` VMs: blank 1 GiB disks, verification skipped as the lab skips it) cuts over twice
 * in one run, against one Temporal dev server, vcsim, the Proxmox simulator and ferry's real worker in
 * its own process at its default limits (the lab's migration settings: overlay cutover, conversion of
 * the real guests):
 *
 *   A  the ten alone, approved together;
 *   B  ten more of the same beside mig-ens01 and mig-ens02 (VMware-native guests converted by real
 *      virt-v2v-in-place at cutover, minutes each): the two are approved first, the ten together once
 *      both conversions are in their main step (`--phase virt-v2v`, the default: both virt-v2v-in-place
 *      processes run; `--phase start`: both convertGuest activities started, still in ferry's guestfish
 *      edits) and `--settle` seconds more, so the ten cut over while the two convert.
 *
 * A VM's downtime is its workflow's own measure: shutdown started → its guest verified (a checked
 * guest's verification.downtimeSeconds) or, for these unchecked ones, → its `start` stage ended
 * (Proxmox runs it). Prints each VM's downtime both ways, p50/p95/max per round, p95(B)/p95(A), where
 * each VM's downtime went (stages, permit waits, activity queue waits, workflow tasks: from its history),
 * how the conversions overlapped the ten's downtime, and the CPU during it by process group. Figures
 * only; it fails when a VM did not migrate or the conversions did not run through the ten's cutovers.
 *
 *   npm run bench:neighbours [-- --vms 10 --phase virt-v2v|start --settle 10 --conversion-priority low|normal]
 *
 * `--conversion-priority` sets the worker's migration.conversion.priority: `low`, its default (the
 * conversions' processes under SCHED_IDLE at nice 19, see atPriority), or `normal` (an even share of the
 * CPU, as before the setting). See docs/benchmarks.md, *Cutover downtime beside conversions*.
 *
 * `--yield-to-cutovers` sets the worker's migration.conversion.yieldToCutovers: `on`, its default (the
 * worker pauses its conversions while a cutover's downtime activities run in it), or `off`. The bench
 * prints the worker's own account of its pauses.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { LAB_APPROVERS, labGuestVerification, labMigrationSection, startMigrationSims } from '../lab/migration-lab';
import { startDevServer } from '../lab/temporal-dev-server';
import { scaleVmName } from '../lab/vcsim/estate';
import { approveWaveUpdate, migrationStatusQuery, waveStatusQuery } from '../src/domain/messages';
import { unpackWaveStatus, type MigrationStatus, type WaveStatus } from '../src/domain/migration';
import { coordinationQueue } from '../src/domain/task-queues';
import { readHistory, type JsonHistory, type WorkflowTimeline } from '../src/report/history';
import { downtimeOf } from '../src/report/vm-timeline';
import { startWorkerProcess, type WorkerProcess } from '../test/helpers/worker-process';
import { writeWorkflowBundle } from '../worker/workflow-bundle';
import type { migrationWave } from '../workflows/migration-wave';
import { CPU_GROUPS, sampleCpu, type CpuGroup } from './lib/cpu-sampler';
import { readProcesses } from './lib/process-tree';
import {
  downtimeBreakdown,
  formatBreakdown,
  overlapMs,
  vmDowntime,
  type DowntimeBreakdown,
  type Span,
} from './lib/downtime-window';
import { percentile } from './lib/percentiles';

const { values: args } = parseArgs({
  options: {
    vms: { type: 'string', default: '10' },
    phase: { type: 'string', default: 'virt-v2v' },
    settle: { type: 'string', default: '10' },
    'conversion-priority': { type: 'string', default: 'low' },
    'yield-to-cutovers': { type: 'string', default: 'on' },
  },
});
const N = Number(args.vms);
const SETTLE_MS = Number(args.settle) * 1000;
const PHASE = args.phase;
const CONVERSION_PRIORITY = args['conversion-priority'];
if (CONVERSION_PRIORITY !== 'low' && CONVERSION_PRIORITY !== 'normal')
  throw new Error(`--conversion-priority: low or normal, not "${CONVERSION_PRIORITY}"`);
if (args['yield-to-cutovers'] !== 'on' && args['yield-to-cutovers'] !== 'off')
  throw new Error(`--yield-to-cutovers: on or off, not "${args['yield-to-cutovers']}"`);
const YIELD = args['yield-to-cutovers'] === 'on';
/** In the worker's environment, so every process it starts carries it (reparented or not). */
const MARKER = `FERRY_BENCH_RUN=neighbours-${process.pid}`;
/** The lab's VMware-native guests: converted by virt-v2v-in-place at cutover (labConversion). */
const CONVERTED = ['mig-ens01', 'mig-ens02'];
const APPROVER = LAB_APPROVERS[0]!;
const STARTED = temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED;

interface Bench {
  client: Client;
  taskQueue: string;
  stamp: number;
  worker: WorkerProcess;
  cpu: ReturnType<typeof sampleCpu>;
  t0: number;
}

/** A VM of a finished round: its result, its history read two ways, its downtime and where it went. */
interface VmRun {
  name: string;
  status: MigrationStatus;
  timeline: WorkflowTimeline;
  downtime?: Span & { until: 'verified' | 'booted' };
  breakdown?: DowntimeBreakdown;
}

interface Round {
  label: string;
  /** When the ten were approved (all at once). */
  approvedAt: number;
  vms: VmRun[];
  converted: VmRun[];
}

async function main(): Promise<void> {
  if (!Number.isInteger(N) || N < 1) throw new Error(`--vms: a whole number ≥ 1, not ${args.vms}`);
  if (PHASE !== 'virt-v2v' && PHASE !== 'start') throw new Error(`--phase: virt-v2v or start, not ${PHASE}`);
  if (!(SETTLE_MS >= 0)) throw new Error(`--settle: seconds ≥ 0, not ${args.settle}`);
  const t0 = Date.now();
  const stops: Array<() => Promise<unknown> | void> = [];
  try {
    const bench = await startLab(t0, stops);
    const scale = (from: number) => Array.from({ length: N }, (_, i) => scaleVmName(from + i));
    const alone = await runRound(bench, 'A', scale(1), []);
    const beside = await runRound(bench, 'B', scale(N + 1), CONVERTED);
    report(bench, alone, beside);
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
  console.log(`\n(${((Date.now() - t0) / 60_000).toFixed(1)} min in all)`);
}

/** Temporal, the simulators and the worker (each one's stop pushed to `stops` as soon as it runs). */
async function startLab(t0: number, stops: Array<() => Promise<unknown> | void>): Promise<Bench> {
  const stateDir = mkdtempSync(path.join(tmpdir(), 'ferry-bench-neighbours-'));
  stops.push(() => rmSync(stateDir, { recursive: true, force: true }));
  const server = await startDevServer();
  stops.push(() => server.stop());
  const stamp = Date.now();
  const sims = await startMigrationSims({
    stateDir,
    extraVms: 2 * N,
    temporalAddress: server.address,
    vcenterName: `bench-${stamp}`,
    migration: benchMigration(stateDir),
  });
  stops.push(() => sims.stop());
  const taskQueue = `bench-${stamp}`;
  const bundleFile = path.join(stateDir, 'workflow-bundle.js');
  await writeWorkflowBundle(bundleFile);
  const [markerName, markerValue] = MARKER.split('=') as [string, string];
  const worker = await startWorkerProcess({
    // The worker's default task queues and limits: convert 2 slots, datastore 8 (src/config/temporal.ts).
    config: { ...sims.document, worker: { taskQueue, shutdownGraceTime: '1s' } },
    configFile: path.join(stateDir, 'ferry.yaml'),
    // INFO: the worker's lines on its conversions' pauses.
    env: { ...sims.env, FERRY_WORKFLOW_BUNDLE: bundleFile, [markerName]: markerValue, FERRY_LOG_LEVEL: 'INFO' },
    name: 'bench',
  });
  let stopping = false;
  worker.child.once('exit', (code, signal) => {
    if (!stopping) console.error(`worker exited (${code ?? signal}):\n${worker.output().slice(-4000)}`);
  });
  stops.push(() => {
    stopping = true;
    return worker.stop();
  });
  const connection = await Connection.connect({ address: server.address });
  stops.push(() => connection.close());
  const cpu = sampleCpu(worker.child.pid!, MARKER);
  stops.push(() => cpu.stop());
  return { client: new Client({ connection }), taskQueue, stamp, worker, cpu, t0 };
}

/**
 * The lab's migration settings (overlay cutover, its conversion rules, its verification), with two
 * changes: no TCP probe (the lab reaches its guests' ports through an endpoint resolver of its own
 * process, lab/guest-endpoints.ts, which a worker in a process of its own does not have; the agent,
 * MAC and address checks remain) and a longer agent timeout (two TCG boots after two conversions on a
 * shared 2-core machine).
 */
function benchMigration(stateDir: string): Record<string, unknown> {
  const lab = labGuestVerification(labMigrationSection(stateDir).cutover as Record<string, unknown>);
  return {
    ...lab,
    verify: { ...(lab.verify as Record<string, unknown>), probes: [], agentTimeout: '10m' },
    conversion: {
      ...(lab.conversion as Record<string, unknown>),
      priority: CONVERSION_PRIORITY,
      yieldToCutovers: YIELD,
    },
  };
}

/** One wave: `names` approved together; `converted` approved first, the rest once both convert. */
async function runRound(b: Bench, label: string, names: string[], converted: string[]): Promise<Round> {
  const waveId = `neighbours-${label}-${b.stamp}`;
  const wave = await b.client.workflow.start<typeof migrationWave>('migrationWave', {
    taskQueue: coordinationQueue(b.taskQueue),
    workflowId: `wave-${waveId}`,
    args: [{ waveId, selection: { names: [...names, ...converted] } }],
  });
  return await cutOver(b, label, wave, names, converted);
}

/** The approvals (the conversions first), the wave's end, and each VM read back. */
async function cutOver(
  b: Bench,
  label: string,
  wave: WorkflowHandle,
  names: string[],
  converted: string[],
): Promise<Round> {
  const gate = await untilAllAtGate(wave, names.length + converted.length);
  log(b, `round ${label}: ${gate.vms.length} VMs at the cutover gate`);
  if (converted.length > 0) {
    await approve(wave, converted, 'the conversions first');
    const ids = converted.map((name) => gate.vms.find((v) => v.name === name)!.workflowId);
    await untilConverting(b.client, ids);
    if (PHASE === 'virt-v2v') await untilVirtV2v(b.worker.child.pid!, converted.length);
    log(
      b,
      `round ${label}: ${converted.join(' and ')} converting (${PHASE === 'virt-v2v' ? 'virt-v2v-in-place running' : 'convertGuest started'}); the ${names.length} follow in ${SETTLE_MS / 1000} s`,
    );
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    for (const phase of await conversionPhases(b.client, ids)) log(b, `  ${phase}`);
    log(b, `  the worker's processes besides itself: ${workerProcesses(b.worker.child.pid!)}`);
  }
  const approvedAt = Date.now();
  const workerLog = b.worker.output().length;
  await approve(wave, names, 'all at once');
  log(b, `round ${label}: ${names.length} VMs approved together`);
  const status = await untilWaveEnds(wave);
  log(b, `round ${label}: wave done`);
  for (const line of yieldLines(b.worker.output().slice(workerLog))) log(b, `  worker: ${line}`);
  const runs = await Promise.all(status.vms.map((vm) => readVm(b.client, vm.name, vm.workflowId)));
  const failed = runs.filter((r) => r.status.outcome !== 'migrated');
  if (failed.length > 0)
    throw new Error(
      `round ${label}: not migrated: ${failed.map((r) => `${r.name} ${r.status.outcome ?? 'failed'}: ${r.status.error ?? ''}`).join('; ')}`,
    );
  return {
    label,
    approvedAt,
    vms: runs.filter((r) => names.includes(r.name)),
    converted: runs.filter((r) => converted.includes(r.name)),
  };
}

async function approve(wave: WorkflowHandle, vms: string[], why: string): Promise<void> {
  await wave.executeUpdate(approveWaveUpdate, { args: [{ by: APPROVER, reason: `benchmark: ${why}`, vms }] });
}

/** Every VM of the wave waits at the cutover gate (a VM that ended before it fails the bench). */
async function untilAllAtGate(wave: WorkflowHandle, count: number): Promise<WaveStatus> {
  const deadline = Date.now() + 20 * 60_000;
  for (;;) {
    const status = await wave.query(waveStatusQuery).catch(() => undefined);
    const ended = status?.vms.filter((v) => v.state === 'finished') ?? [];
    if (ended.length > 0)
      throw new Error(
        `ended before their approval: ${ended.map((v) => `${v.name} ${v.outcome ?? ''} ${v.refusal ?? v.error ?? ''}`).join('; ')}`,
      );
    if (status?.vms.length === count && status.vms.every((v) => v.stage === 'awaiting-approval')) return status;
    if (Date.now() > deadline) throw new Error(`not all ${count} VMs reached the cutover gate in 20 minutes`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Each of these VM workflows runs its convertGuest activity (virt-v2v-in-place on a convert worker). */
async function untilConverting(client: Client, workflowIds: string[]): Promise<void> {
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    const running = await Promise.all(
      workflowIds.map(async (id) => {
        const { raw } = await client.workflow.getHandle(id).describe();
        return (raw.pendingActivities ?? []).some(
          (a) => a.activityType?.name === 'convertGuest' && a.state === STARTED,
        );
      }),
    );
    if (running.every(Boolean)) return;
    if (Date.now() > deadline) throw new Error('the conversions did not start within 10 minutes of their approval');
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * `count` virt-v2v-in-place processes run, started by the worker (each conversion's main step, after
 * ferry's own guest edits; the activity's heartbeat would say so up to a throttle interval late).
 */
async function untilVirtV2v(workerPid: number, count: number): Promise<void> {
  const deadline = Date.now() + 15 * 60_000;
  for (;;) {
    const running = [...readProcesses().values()].filter((p) => p.ppid === workerPid && /^virt-v2v/.test(p.comm));
    if (running.length >= count) return;
    if (Date.now() > deadline) throw new Error(`not ${count} virt-v2v processes within 15 minutes`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** What each conversion reported last in its heartbeat (its step), as the ten are approved. */
async function conversionPhases(client: Client, workflowIds: string[]): Promise<string[]> {
  return Promise.all(
    workflowIds.map(async (id) => {
      const { raw } = await client.workflow.getHandle(id).describe();
      const a = (raw.pendingActivities ?? []).find((p) => p.activityType?.name === 'convertGuest');
      const data = a?.heartbeatDetails?.payloads?.[0]?.data;
      const beat = data ? (JSON.parse(Buffer.from(data).toString('utf8')) as { phase?: string }) : undefined;
      return `${id}: convertGuest ${a?.state === STARTED ? 'running' : 'not running'}, last heartbeat: ${beat?.phase ?? 'none yet'}`;
    }),
  );
}

/** The processes the worker started (they carry the marker) that run now, the worker itself left out. */
function startedByWorker(workerPid: number) {
  return new Map([...readProcesses(MARKER)].filter(([pid, p]) => p.marked && pid !== workerPid));
}

/** The worker's own lines on its conversions' pauses for cutovers (src/conversion/yield-to-cutovers.ts). */
function yieldLines(output: string): string[] {
  return output
    .split('\n')
    .filter((l) => /conversions (yield to a cutover|go on)/.test(l))
    .map((l) => l.replace(/^\S+ \[INFO\] /, ''));
}

/** The processes the worker started that run now (by the marker), by command: the conversions' own. */
function workerProcesses(workerPid: number): string {
  const counts = new Map<string, number>();
  for (const p of startedByWorker(workerPid).values()) counts.set(p.comm, (counts.get(p.comm) ?? 0) + 1);
  return [...counts].map(([comm, n]) => (n > 1 ? `${comm} ×${n}` : comm)).join(', ') || 'none';
}

/** The wave's result; a VM that stops for a person's decision (a failed cutover) fails the bench at once. */
async function untilWaveEnds(wave: WorkflowHandle): Promise<WaveStatus> {
  const result = wave.result() as Promise<{ status: Parameters<typeof unpackWaveStatus>[0] }>;
  let done = false;
  const settled = result.then(
    () => (done = true),
    () => (done = true),
  );
  while (!done) {
    await Promise.race([settled, new Promise((r) => setTimeout(r, 5000))]);
    if (done) break;
    const status = await wave.query(waveStatusQuery).catch(() => undefined);
    const stuck = status?.vms.filter((v) => v.stage === 'awaiting-decision') ?? [];
    if (stuck.length > 0) {
      await wave.terminate('benchmark: a cutover failed');
      throw new Error(
        `cutover failed, waiting for a decision: ${stuck.map((v) => `${v.name} ${v.error ?? ''}`).join('; ')}`,
      );
    }
  }
  return unpackWaveStatus((await result).status);
}

/** A VM's result (or, failed, its status), its history, and its downtime with where it went. */
async function readVm(client: Client, name: string, workflowId: string): Promise<VmRun> {
  const handle = client.workflow.getHandle(workflowId);
  const status = (await handle.result().catch(() => handle.query(migrationStatusQuery))) as MigrationStatus;
  const history = await handle.fetchHistory();
  const events = history.events ?? [];
  const timeline = readHistory(workflowId, JSON.parse(historyToJSON(history)) as JsonHistory);
  const downtime = vmDowntime(status);
  return {
    name,
    status,
    timeline,
    ...(downtime ? { downtime, breakdown: downtimeBreakdown(status, events, timeline, downtime) } : {}),
  };
}

function log(b: Bench, line: string): void {
  console.log(`[${((Date.now() - b.t0) / 1000).toFixed(0).padStart(4)} s] ${line}`);
}

const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const rel = (at: number, zero: number) => `${at >= zero ? '+' : ''}${((at - zero) / 1000).toFixed(1)}`;
const downtimeMs = (vm: VmRun) => (vm.downtime ? vm.downtime.to - vm.downtime.from : NaN);

function report(b: Bench, alone: Round, beside: Round): void {
  printRound(b, alone, 'the ten alone');
  printConversions(beside);
  printRound(b, beside, `the ten beside ${CONVERTED.length} conversions`);
  printSummary(alone, beside);
}

function printRound(b: Bench, round: Round, what: string): void {
  const zero = round.approvedAt;
  console.log(`\nround ${round.label}: ${what} (times in s after the ten's approval)`);
  for (const vm of round.vms) {
    const d = vm.downtime!;
    const reportFigure = downtimeOf(vm.timeline, Date.now());
    console.log(
      `  ${vm.name.padEnd(11)} downtime ${sec(downtimeMs(vm)).padStart(7)} (${rel(d.from, zero)} → ${rel(d.to, zero)}, until ${d.until}; the report's figure ${reportFigure ? sec(reportFigure.ms) : '–'})`,
    );
    for (const line of formatBreakdown(vm.breakdown!, b.taskQueue)) console.log(`      ${line}`);
  }
  const from = Math.min(...round.vms.map((v) => v.downtime!.from));
  const to = Math.max(...round.vms.map((v) => v.downtime!.to));
  const cpu = b.cpu.during(from, to);
  const names: Record<CpuGroup, string> = {
    worker: 'ferry worker',
    conversion: 'its children (conversions)',
    bench: 'bench + Proxmox simulator',
    servers: 'Temporal, vcsim, QEMU guests',
    other: 'other sessions',
  };
  console.log(
    `  CPU during their downtimes (${rel(from, zero)} → ${rel(to, zero)}): machine ${(cpu.machine * 100).toFixed(0)} % busy; in cores: ${CPU_GROUPS.map((g) => `${names[g]} ${cpu.cores[g].toFixed(2)}`).join(', ')}`,
  );
}

/** The two conversions: when convertGuest ran, its steps, and whether each of the ten's downtime lies inside both. */
function printConversions(round: Round): void {
  const zero = round.approvedAt;
  console.log(`\nround ${round.label}: the conversions (times in s after the ten's approval)`);
  const spans: Span[] = [];
  for (const vm of round.converted) {
    const activity = vm.timeline.activities.find((a) => a.name === 'convertGuest' && a.outcome === 'completed');
    const result = vm.status.conversion?.result;
    if (!activity?.startedAt || !activity.closedAt || !result?.converted)
      throw new Error(`${vm.name}: no completed conversion in its history`);
    spans.push({ from: activity.startedAt, to: activity.closedAt });
    let at = activity.startedAt;
    const steps = result.steps.map((s) => {
      const line = `${s.step} ${rel(at, zero)} → ${rel(at + s.seconds * 1000, zero)}`;
      at += s.seconds * 1000;
      return line;
    });
    console.log(
      `  ${vm.name}: convertGuest ${rel(activity.startedAt, zero)} → ${rel(activity.closedAt, zero)} (${sec(activity.closedAt - activity.startedAt)}, ${result.accel}): ${steps.join(', ')}; guest ${vm.status.verification?.state ?? '?'}`,
    );
  }
  const inside = round.vms.filter((vm) =>
    spans.every((s) => overlapMs(vm.downtime!.from, vm.downtime!.to, s) === downtimeMs(vm)),
  );
  console.log(`  the ten's downtimes wholly inside both conversions: ${inside.length}/${round.vms.length}`);
  if (inside.length < round.vms.length) {
    console.log('  !! some cutovers did not run beside both conversions: round B proves nothing for them');
    process.exitCode = 1;
  }
}

function printSummary(alone: Round, beside: Round): void {
  const a = alone.vms.map(downtimeMs);
  const b = beside.vms.map(downtimeMs);
  console.log('\ndowntime (shutdown started → running on Proxmox), the same ten unconverted VMs each round:');
  console.log(`  ${''.padEnd(24)} ${'alone (A)'.padStart(10)} ${'beside (B)'.padStart(11)}`);
  alone.vms.forEach((vm, i) =>
    console.log(
      `  ${`${vm.name} / ${beside.vms[i]?.name ?? '–'}`.padEnd(24)} ${sec(a[i]!).padStart(10)} ${sec(b[i] ?? NaN).padStart(11)}`,
    ),
  );
  for (const p of [50, 95])
    console.log(`  ${`p${p}`.padEnd(24)} ${sec(percentile(a, p)).padStart(10)} ${sec(percentile(b, p)).padStart(11)}`);
  console.log(`  ${'max'.padEnd(24)} ${sec(Math.max(...a)).padStart(10)} ${sec(Math.max(...b)).padStart(11)}`);
  console.log(`  (p95 by nearest rank: of ${a.length} values the ${Math.ceil(0.95 * a.length)}th smallest)`);
  printMeans(alone, beside);
  const ratio = percentile(b, 95) / percentile(a, 95);
  console.log(`\n  p95 beside conversions / p95 alone: ${ratio.toFixed(2)} (acceptance: ≤ 1.2)`);
}

/** The rounds' mean breakdowns side by side: which part of the downtime grew. */
function printMeans(alone: Round, beside: Round): void {
  const rows = new Map<string, [number, number]>();
  const add = (key: string, which: 0 | 1, ms: number, n: number) => {
    const row = rows.get(key) ?? [0, 0];
    row[which] += ms / n;
    rows.set(key, row);
  };
  [alone, beside].forEach((round, which) => {
    const n = round.vms.length;
    for (const { breakdown: x } of round.vms) {
      for (const [stage, ms] of x!.stages) add(`stage ${stage}`, which as 0 | 1, ms, n);
      add('between stages', which as 0 | 1, x!.betweenStages, n);
      for (const [limit, ms] of x!.permitWaits) add(`wait for permit ${limit}`, which as 0 | 1, ms, n);
      for (const q of x!.activityQueued) add(`queued: ${q.activity}`, which as 0 | 1, q.ms, n);
      add('workflow tasks queued', which as 0 | 1, x!.workflowTaskQueued, n);
      add('workflow tasks running', which as 0 | 1, x!.workflowTaskRunning, n);
    }
  });
  console.log('\n  mean per VM, inside its downtime:');
  for (const [key, [ma, mb]] of rows)
    console.log(`    ${key.padEnd(36)} ${sec(ma).padStart(8)} ${sec(mb).padStart(9)}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
