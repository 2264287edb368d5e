/**
 * Benchmark (issue 34): day-2 changes at scale, against the Proxmox simulator and a real NetBox, the
 * worker in its own process at its default limits.
 *
 * - live: N running VMs (default 200), one live field edited in NetBox on each (memory, hot-pluggable
 *   with NUMA and `hotplug` memory; `--field vlan` moves net0 to another VLAN instead), N `changeVm`
 *   runs started at once. Prints the wall time from the first start to the last result, the Proxmox
 *   requests per change (reads and writes, from the simulator's request log), the worker's CPU per VM.
 * - held: M running VMs (default 1,000), a restart-only field edited on each (vcpus, no CPU hotplug),
 *   M `changeVm` runs started; once all wait at `awaiting-approval`, prints the worker's RSS.
 * - drift: then the drift report over the cluster (every VM made above, N + M), timed, with the NetBox
 *   requests it made (the worker reaches NetBox through a counting proxy).
 *
 * The VMs are made directly (the simulator's API, NetBox's), as provisioning leaves a built VM: status
 * active, ferry_vmid set, a config whose change plan is empty (checked on one VM before the edits).
 * They have no bootable disk, so the simulator simulates them (no QEMU).
 *
 *   npm run bench:change [-- --vms 200 --held 1000 --field memory|vlan --max-cached 50 --allocator jemalloc|glibc
 *                            --gate-watch 90 --memory-probe DIR]
 *
 * --gate-watch S (default 90): after the gate's figures, the worker's RSS every 15 s for S seconds. The
 * runs wait there for a person, hours maybe: what the worker holds once V8 has collected the start
 * burst's garbage (its memory reducer, some 30 s after the last run arrived) is what it holds there.
 * --memory-probe DIR: at the gate, the worker writes its memory usage and a heap snapshot of every
 * isolate (main thread, workflow thread) there (bench/lib/memory-probe.cjs).
 *
 * The worker runs as production starts it (bin/ferry-worker): dist/worker.js, jemalloc preloaded.
 *
 * It prints figures; it is not a test.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { startDevServer } from '../lab/temporal-dev-server';
import { LAB_NETBOX } from '../lab/netbox-seed';
import { apiWrites } from '../lab/proxmox-sim/admin-client';
import { changeStatusQuery } from '../src/domain/messages';
import { idOnly } from '../src/netbox/schemas';
import { startNetboxProxy, type NetboxProxy } from '../test/helpers/netbox-proxy';
import { startProvisionLab, type ProvisionLab } from '../test/helpers/provision-lab';
import { startWorkerProcess, type WorkerProcess } from '../test/helpers/worker-process';
import { writeWorkflowBundle } from '../worker/workflow-bundle';
import type { changeVm } from '../workflows/change-vm';
import type { driftReport } from '../workflows/drift-report';
import type { planChange } from '../workflows/plan-change';
import { allocatorEnv } from './lib/allocator';
import { cpuByCommand, cpuSpent, machineCpu } from './lib/cpu-by-command';
import { mib, processStats } from './lib/process-stats';
import { ms, percentile } from './lib/percentiles';
import { formatBreakdown, meanBreakdown, timeBreakdown } from './lib/time-breakdown';

const { values: args } = parseArgs({
  options: {
    vms: { type: 'string', default: '200' },
    held: { type: 'string', default: '1000' },
    field: { type: 'string', default: 'memory' },
    'max-cached': { type: 'string' },
    allocator: { type: 'string', default: 'jemalloc' },
    'memory-probe': { type: 'string' },
    'gate-watch': { type: 'string', default: '90' },
  },
});

/** Memory hotplug needs NUMA and `memory` in `hotplug` (qemu-server); CPU hotplug is left out: vcpus waits for a restart. */
const VM_OPTIONS = { numa: '1', hotplug: 'network,disk,memory,usb' };
const MEMORY = 1024;
const VLAN = 20;
const NODES = ['pve1', 'pve2', 'pve3'];
/** No run reached the gate for this long: the bench stops and shows the worker's output. */
const STALL_MS = 60_000;

interface BenchVm {
  netboxId: number;
  vmid: number;
}

async function main(): Promise<void> {
  const server = await startDevServer();
  process.env.FERRY_TEST_TEMPORAL_ADDRESS = server.address;
  const lab = await startProvisionLab({
    provisioning: { extras: VM_OPTIONS },
  }).catch(async (err: unknown) => {
    await server.stop();
    throw err;
  });
  const stamp = Date.now();
  const taskQueue = `bench-change-${stamp}`;
  const bundleFile = path.join(lab.stateDir, 'workflow-bundle.js');
  await writeWorkflowBundle(bundleFile);
  const probeEnv: Record<string, string> = args['memory-probe']
    ? { FERRY_MEMORY_PROBE_DIR: path.resolve(args['memory-probe']) }
    : {};
  const maxCached = args['max-cached'] ? { maxCachedWorkflows: Number(args['max-cached']) } : {};
  const netbox = await startNetboxProxy(lab.netbox.url);
  const worker = await startWorkerProcess({
    config: {
      ...lab.document,
      netbox: { ...(lab.document.netbox as object), url: netbox.url },
      worker: { taskQueue, shutdownGraceTime: '1s', ...maxCached },
    },
    configFile: path.join(lab.stateDir, `ferry-${stamp}.yaml`),
    env: { ...lab.env, FERRY_WORKFLOW_BUNDLE: bundleFile, ...allocatorEnv(args.allocator), ...probeEnv },
    nodeArgs: probeEnv.FERRY_MEMORY_PROBE_DIR ? ['--require', path.join(__dirname, 'lib', 'memory-probe.cjs')] : [],
    // As production runs it (bin/ferry-worker): compiled, with jemalloc preloaded where the host has it.
    compiled: true,
    name: 'bench',
  });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  try {
    console.log(
      `worker: default limits, maxCachedWorkflows ${args['max-cached'] ?? '50 (default)'}, compiled, allocator ${args.allocator}, its own process (pid ${worker.child.pid})`,
    );
    const n = Number(args.vms);
    if (n > 0) await liveBench(lab, client, worker, netbox, taskQueue, n);
    const m = Number(args.held);
    if (m > 0) await heldBench(lab, client, worker, taskQueue, m, 10_000 + n);
    if (n + m > 0) await driftBench(lab, client, netbox, taskQueue);
  } finally {
    await worker.stop();
    await netbox.close();
    await connection.close();
    await lab.stop();
    await server.stop();
  }
}

async function liveBench(
  lab: ProvisionLab,
  client: Client,
  worker: WorkerProcess,
  netbox: NetboxProxy,
  taskQueue: string,
  n: number,
): Promise<void> {
  const vms = await makeVms(lab, n, 10_000, 'live');
  await expectEmptyPlan(client, taskQueue, vms[0]!);
  const edit = args.field === 'vlan' ? { custom_fields: { ferry_vlan: VLAN + 10 } } : { memory: MEMORY * 2 };
  await inParallel(vms, 8, (vm) => lab.nb.updateVirtualMachine(vm.netboxId, edit));
  const pid = worker.child.pid!;
  const mark = (await lab.admin.log()).requests.length;
  const netboxMark = netbox.requests.length;
  const processNames = { [pid]: 'ferry worker', [process.pid]: 'bench + Proxmox simulator' };
  const processesBefore = cpuByCommand(processNames);
  const machineBefore = machineCpu();
  const before = processStats(pid);
  const started = performance.now();
  const handles = await Promise.all(vms.map((vm) => startChange(client, taskQueue, vm)));
  const results = await Promise.all(handles.map((h) => h.result()));
  const wallMs = performance.now() - started;
  const after = processStats(pid);
  const processesAfter = cpuByCommand(processNames);
  const machineAfter = machineCpu();
  const requests = (await lab.admin.log()).requests.slice(mark);
  const netboxRequests = netbox.requests.slice(netboxMark);
  const writes = apiWrites(requests);
  const outcomes = count(results.map((r) => r.outcome));
  const perVm = await Promise.all(
    handles.map(async (h) => {
      const d = await h.describe();
      return d.closeTime!.getTime() - d.startTime.getTime();
    }),
  );
  console.log(`live changes: ${n} running VMs, ${args.field} edited on each, ${n} changeVm runs started at once`);
  console.log(`  outcomes:     ${[...outcomes].map(([o, c]) => `${c} ${o}`).join(', ')}`);
  console.log(`  wall time:    ${(wallMs / 1000).toFixed(1)} s (first start → last result)`);
  console.log(`  per run:      p50 ${ms(percentile(perVm, 50))}, p99 ${ms(percentile(perVm, 99))}`);
  console.log(
    `  Proxmox:      ${requests.length} requests, ${(requests.length / n).toFixed(1)} per change: ${((requests.length - writes.length) / n).toFixed(1)} reads, ${(writes.length / n).toFixed(1)} writes`,
  );
  console.log(`  by request (per change):`);
  for (const [what, c] of [...count(requests.map(requestShape))].sort((a, b) => b[1] - a[1]))
    console.log(`    ${(c / n).toFixed(2).padStart(6)}  ${what}`);
  console.log(
    `  NetBox:       ${netboxRequests.length} requests, ${(netboxRequests.length / n).toFixed(2)} per change:`,
  );
  for (const [what, c] of [...count(netboxRequests.map(netboxShape))].sort((a, b) => b[1] - a[1]))
    console.log(`    ${(c / n).toFixed(2).padStart(6)}  ${what}`);
  const cpuMs = after.cpuMs - before.cpuMs;
  console.log(`  worker CPU:   ${(cpuMs / 1000).toFixed(1)} s, ${ms(cpuMs / n)} per VM; RSS ${mib(after.rssBytes)}`);
  const busy = machineAfter.busyMs - machineBefore.busyMs;
  console.log(
    `  machine CPU:  ${(busy / 1000).toFixed(1)} s busy of ${((2 * wallMs) / 1000).toFixed(1)} s on 2 cores, ${((machineAfter.stealMs - machineBefore.stealMs) / 1000).toFixed(1)} s stolen`,
  );
  console.log(`  CPU per VM by process, largest first (other processes on the machine included):`);
  for (const [label, spent] of cpuSpent(processesBefore, processesAfter, 500))
    console.log(`    ${label.padEnd(28)} ${(spent / n).toFixed(0).padStart(5)} ms`);
  const sample = handles.filter((_, i) => i % Math.max(1, Math.floor(n / 40)) === 0);
  const histories = await Promise.all(sample.map(async (h) => (await h.fetchHistory()).events ?? []));
  console.log(`  per run, mean of ${sample.length} histories:`);
  for (const line of formatBreakdown(meanBreakdown(histories.map(timeBreakdown)))) console.log(`    ${line}`);
}

async function heldBench(
  lab: ProvisionLab,
  client: Client,
  worker: WorkerProcess,
  taskQueue: string,
  m: number,
  firstVmid: number,
): Promise<void> {
  const vms = await makeVms(lab, m, firstVmid, 'held');
  await expectEmptyPlan(client, taskQueue, vms[0]!);
  await inParallel(vms, 8, (vm) => lab.nb.updateVirtualMachine(vm.netboxId, { vcpus: 2 }));
  const pid = worker.child.pid!;
  const before = processStats(pid);
  const started = performance.now();
  const handles = await inParallel(vms, 50, (vm) => startChange(client, taskQueue, vm));
  // Watched with describe, not the status query: a query of a run the worker's cache evicted replays it,
  // and polling 1,000 of them would load the worker the bench measures.
  let left = handles;
  let progressAt = performance.now();
  while (left.length) {
    const atGate = await inParallel(left, 20, (h) => reachedGate(h));
    if (atGate.some(Boolean)) progressAt = performance.now();
    left = left.filter((_, i) => !atGate[i]);
    if (performance.now() - progressAt > STALL_MS) {
      const tail = ((await left[0]!.fetchHistory()).events ?? []).slice(-8).map((e) => String(e.eventType));
      throw new Error(
        `${left.length} of ${m} runs not at the gate and none came for ${STALL_MS / 1000} s; ${left[0]!.workflowId} ends with ${tail.join(', ')}; the worker said:\n${worker.output().slice(-4000)}`,
      );
    }
    if (left.length) await new Promise((r) => setTimeout(r, 2_000));
  }
  const atGateMs = performance.now() - started;
  // The cache evicts and settles: read the RSS once the worker is idle at the gate.
  await new Promise((r) => setTimeout(r, 15_000));
  const at = processStats(pid);
  // The gate as the runs themselves say it, for a sample (each query of an evicted run replays it).
  const stages = await inParallel(handles.slice(0, 20), 5, async (h) => (await h.query(changeStatusQuery)).stage);
  const waiting = stages.filter((s) => s === 'awaiting-approval').length;
  console.log(`held changes: ${m} running VMs, vcpus edited on each (restart-only), ${m} changeVm runs`);
  console.log(
    `  all ${m} idle after their read-back (${waiting} of a sample of ${stages.length} say awaiting-approval) ${(atGateMs / 1000).toFixed(1)} s after the first start`,
  );
  console.log(
    `  worker RSS 15 s after the last run arrived: ${mib(at.rssBytes)} (anonymous ${mib(at.rssAnonBytes)}, file ${mib(at.rssFileBytes)}), peak ${mib(at.peakRssBytes)}, ${at.threads} threads`,
  );
  console.log(`  worker CPU:   ${ms((at.cpuMs - before.cpuMs) / m)} per VM to reach the gate`);
  await watchGate(pid, Number(args['gate-watch']));
  if (args['memory-probe']) await probeMemory(pid, path.resolve(args['memory-probe']));
  await inParallel(handles, 50, (h) => h.terminate('bench over'));
}

/** The worker's RSS every 15 s for `seconds`, the runs idle at the gate. */
async function watchGate(pid: number, seconds: number): Promise<void> {
  const samples: string[] = [];
  for (let t = 15; t <= seconds; t += 15) {
    await new Promise((r) => setTimeout(r, 15_000));
    samples.push(`${t + 15} s ${mib(processStats(pid).rssBytes)}`);
  }
  if (samples.length)
    console.log(`  worker RSS later at the gate (time since the last run arrived): ${samples.join(', ')}`);
}

/** Signals the worker's memory probe and waits until it has written every isolate's snapshot. */
async function probeMemory(pid: number, dir: string): Promise<void> {
  const before = new Set(existsSync(dir) ? readdirSync(dir) : []);
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    const done = existsSync(dir) && readdirSync(dir).find((f) => f.endsWith('-done') && !before.has(f));
    if (done) {
      console.log(`  memory probe: ${dir}/${done.replace(/-done$/, '')}-* (usage, heap snapshots)`);
      return;
    }
    await new Promise((r) => setTimeout(r, 1_000));
  }
  throw new Error(`the worker's memory probe wrote nothing to ${dir} within 180 s`);
}

/** The drift report over the bench's cluster: every VM made above, read and planned in one run. */
async function driftBench(lab: ProvisionLab, client: Client, netbox: NetboxProxy, taskQueue: string): Promise<void> {
  const netboxMark = netbox.requests.length;
  const proxmoxMark = (await lab.admin.log()).requests.length;
  const started = performance.now();
  const report = await client.workflow.execute<typeof driftReport>('driftReport', {
    taskQueue,
    workflowId: `bench-drift-${Date.now()}`,
    args: [{ cluster: LAB_NETBOX.cluster }],
  });
  const wallMs = performance.now() - started;
  const netboxRequests = netbox.requests.slice(netboxMark);
  const proxmoxRequests = (await lab.admin.log()).requests.length - proxmoxMark;
  const payload = Buffer.byteLength(JSON.stringify(report));
  console.log(
    `drift report over ${LAB_NETBOX.cluster}: ${report.read} VMs read and planned, ${report.drifting.length} drifting${report.truncated ? ` (+${report.truncated} left out)` : ''}, ${report.unreadable.length} unreadable`,
  );
  console.log(`  wall time:    ${(wallMs / 1000).toFixed(1)} s (start → report), its result ${mib(payload)}`);
  console.log(
    `  NetBox:       ${netboxRequests.length} requests (${[...count(netboxRequests.map(netboxShape))].map(([w, c]) => `${c} ${w}`).join(', ')})`,
  );
  console.log(`  Proxmox:      ${proxmoxRequests} requests`);
  for (const vm of report.unreadable.slice(0, 5)) console.log(`  unreadable:   ${vm.name}: ${vm.reason}`);
}

/**
 * A run waits at the gate once its stage (the `FerryStage` search attribute, upserted as it enters the
 * gate) says `awaiting-approval` and no workflow task or activity is pending: read with describe, which
 * (unlike a query) does not replay a run the worker's cache evicted. A run that ended fails the bench.
 */
async function reachedGate(handle: WorkflowHandle): Promise<boolean> {
  const d = await handle.describe();
  if (d.status.name !== 'RUNNING') throw new Error(`${handle.workflowId} ended before the gate (${d.status.name})`);
  const stage = d.searchAttributes.FerryStage?.[0];
  return stage === 'awaiting-approval' && !d.raw.pendingWorkflowTask && (d.raw.pendingActivities ?? []).length === 0;
}

/** N running VMs in the simulator and their NetBox records as provisioning leaves them (spread over the nodes). */
async function makeVms(lab: ProvisionLab, n: number, firstVmid: number, label: string): Promise<BenchVm[]> {
  const pve = lab.deps.proxmox!;
  const started = performance.now();
  const vms = await inParallel(
    Array.from({ length: n }, (_, i) => i),
    8,
    async (i) => {
      const vmid = firstVmid + i;
      const node = NODES[i % NODES.length]!;
      const name = `bench-${label}-${vmid}`;
      await pve.vms.create({
        node,
        vmid,
        name,
        machine: 'q35',
        bios: 'ovmf',
        efidisk: { storage: 'local-lvm', efitype: '4m', preEnrolledKeys: true },
        cores: 1,
        sockets: 1,
        memory: MEMORY,
        ostype: 'l26',
        scsihw: 'virtio-scsi-single',
        agent: 'enabled=1',
        tags: ['ferry'],
        nics: [{ slot: 'net0', model: 'virtio', bridge: 'vmbr0', tag: VLAN }],
        boot: 'order=scsi0;net0',
        // An empty new disk: not bootable, so the simulator simulates the VM (no QEMU).
        extra: { ...VM_OPTIONS, scsi0: 'local-lvm:1,iothread=1,discard=on' },
      });
      await pve.power.start(node, vmid);
      const { data } = await lab.nb.http.request('POST', 'api/virtualization/virtual-machines/', {
        schema: idOnly,
        body: {
          name,
          status: 'active',
          cluster: lab.seeded.clusterId,
          site: lab.seeded.siteId,
          vcpus: 1,
          memory: MEMORY,
          disk: 1024,
          custom_fields: {
            ferry_vmid: vmid,
            ferry_node: node,
            ferry_storage: 'local-lvm',
            ferry_network: 'vmbr0',
            ferry_vlan: VLAN,
          },
        },
      });
      return { netboxId: data.id, vmid };
    },
  );
  console.log(
    `made ${n} running VMs and their NetBox records in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return vms;
}

/** An unedited VM must plan to nothing, or the bench measures something else. */
async function expectEmptyPlan(client: Client, taskQueue: string, vm: BenchVm): Promise<void> {
  const result = await client.workflow.execute<typeof planChange>('planChange', {
    taskQueue,
    workflowId: `bench-plan-${vm.vmid}-${Date.now()}`,
    args: [{ netboxId: vm.netboxId }],
  });
  if (!result.plan || result.plan.changes.length > 0)
    throw new Error(`an unedited bench VM does not plan to nothing: ${JSON.stringify(result).slice(0, 3000)}`);
}

function startChange(client: Client, taskQueue: string, vm: BenchVm): Promise<WorkflowHandle<typeof changeVm>> {
  return client.workflow.start<typeof changeVm>('changeVm', {
    taskQueue,
    workflowId: `change-${vm.vmid}`,
    args: [{ netboxId: vm.netboxId, vmid: vm.vmid, trigger: { source: 'ferry-apply', at: new Date().toISOString() } }],
  });
}

/** `GET /nodes/{node}/qemu/{vmid}/pending` from a logged request (VMIDs, nodes and UPIDs folded). */
function requestShape(r: { method: string; path: string }): string {
  const path = r.path
    .replace(/\/nodes\/[^/]+/, '/nodes/{node}')
    .replace(/\/qemu\/\d+/, '/qemu/{vmid}')
    .replace(/\/tasks\/[^/]+/, '/tasks/{upid}');
  return `${r.method} ${path}`;
}

/** `GET /api/virtualization/interfaces/` from a logged NetBox request (ids folded, status dropped). */
function netboxShape(logged: string): string {
  const [method, path] = logged.split(' ');
  return `${method} ${path!.replace(/\/\d+\//g, '/{id}/')}`;
}

function count(items: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return counts;
}

async function inParallel<T, R>(items: readonly T[], width: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let i = next++; i < items.length; i = next++) results[i] = await fn(items[i]!);
    }),
  );
  return results;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
