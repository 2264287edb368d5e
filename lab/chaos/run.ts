import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { parseConfig } from '../../src/config';
import { DnsClient } from '../../src/dns/client';
import { tsigKey } from '../../src/dns/tsig';
import { NetboxClient } from '../../src/netbox/client';
import { createDependencies } from '../../worker/dependencies';
import { seedLabNetbox } from '../netbox-seed';
import { checkInvariants, invariantTable, type InvariantRow } from './invariants';
import { startKiller, type KillRecord } from './killer';
import { observe, vmwareVms } from './observe';
import { chaosSchedule, describeSchedule, KILL_POINTS, type ChaosSettings, type KillPoint } from './schedule';
import { CHAOS_TASK_QUEUE, startChaosServers, type ChaosServers } from './servers';
import { stillRunning } from './still-running';
import { startWorkerFleet } from './worker-fleet';
import { createPlannedVms, planWave, runWorkload } from './workload';

export interface ChaosRunOptions extends ChaosSettings {
  /** How long the workload may take before what has no outcome by then counts as such. */
  timeoutMs: number;
  /** Without a kill point seen for this long, the next kill comes anyway (default 20 s). */
  maxGapMs?: number;
  /** Kill points to schedule from (all by default). */
  points?: readonly KillPoint[];
  log?: (line: string) => void;
  /** Write what the checker read (and the report) to this JSON file, to look into a failed invariant. */
  dumpFile?: string;
}

export interface ChaosReport {
  rows: InvariantRow[];
  kills: KillRecord[];
  /** Injected faults and outages per dependency. */
  faults: Record<string, Record<string, number>>;
  outcomes: Record<string, number>;
  operatorRetries: number;
  seconds: number;
  /** Every invariant is 0. */
  ok: boolean;
  /** The table and the counts, as printed. */
  text: string;
}

function tally(values: ReadonlyArray<string | undefined>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v ?? '(none)'] = (out[v ?? '(none)'] ?? 0) + 1;
  return out;
}

async function injectFaults(servers: ChaosServers, seed: number, rate: number): Promise<void> {
  await servers.sims.admin.setFaults({
    seed,
    latencyMs: { min: 0, max: 40 },
    errorRate: rate / 4,
    dropRate: rate / 4,
    lockRate: rate / 4,
    taskFailureRate: rate / 4,
  });
  servers.vcsimProxy.setFaults({
    seed: seed + 1,
    latencyMs: { min: 0, max: 50 },
    errorRate: rate / 3,
    dropRate: rate / 3,
    sessionLossRate: rate / 3,
  });
  servers.netboxProxy.setFaults({
    seed: seed + 2,
    latencyMs: { min: 0, max: 80 },
    errorRate: rate / 2,
    conflictRate: rate / 2,
  });
}

async function faultCounts(
  servers: ChaosServers,
  bindOutages: number,
  serverRestarts: number,
): Promise<ChaosReport['faults']> {
  const log = await servers.sims.admin.log();
  const { requests: vcsimRequests, ...vcsim } = servers.vcsimProxy.counts();
  const { requests: netboxRequests, ...netbox } = servers.netboxProxy.counts();
  return {
    proxmox: {
      requests: log.requests.length,
      ...tally(log.requests.filter((r) => r.fault).map((r) => r.fault)),
      'task-failure': log.tasks.filter((t) => /fault injected/.test(String(t.exitstatus))).length,
    },
    vcsim: { requests: vcsimRequests, ...vcsim },
    netbox: { requests: netboxRequests, ...netbox },
    bind: { 'stop-start': bindOutages },
    temporal: { 'kill-9-restart': serverRestarts },
  };
}

/**
 * One chaos run: the servers without a worker, `workers` worker processes, the seeded schedule of
 * kills, Temporal restarts, a BIND outage and faults in every dependency over a migration wave and a
 * provisioning batch with teardowns; then the invariant table.
 */
export async function runChaos(options: ChaosRunOptions): Promise<ChaosReport> {
  const started = Date.now();
  const print = options.log ?? ((line: string) => console.log(line));
  const log = (line: string) =>
    print(
      line.startsWith('chaos: ') ? `chaos: [${Math.round((Date.now() - started) / 1000)}s] ${line.slice(7)}` : line,
    );
  const points = options.points ?? KILL_POINTS;
  const schedule = chaosSchedule(options, points);
  for (const line of describeSchedule(schedule)) print(line);
  const stateDir = mkdtempSync(path.join(tmpdir(), 'ferry-chaos-'));
  let ok = false;
  const cleanups: Array<() => Promise<unknown>> = [];
  try {
    const servers = await startChaosServers(stateDir, schedule.workload.migrate, log);
    cleanups.push(() => servers.stop());
    const connection = await Connection.connect({ address: servers.temporal.address });
    cleanups.push(() => connection.close());
    const client = new Client({ connection });
    const deps = await createDependencies(parseConfig(servers.directDocument, servers.env, 'chaos checker'));
    cleanups.push(async () => {
      await deps.vsphere?.close().catch(() => undefined);
      await deps.proxmox?.close();
      await deps.proxmoxPrivileged?.close();
      await deps.netbox?.close();
    });
    const nb = NetboxClient.fromConfig({ url: servers.netbox.url, token: servers.netbox.tokenV2, validateCerts: true });
    cleanups.push(() => nb.close());
    const { bind } = servers;
    const dns = new DnsClient({
      server: bind.server,
      port: bind.port,
      key: tsigKey(bind.key.name, bind.key.algorithm, bind.key.secret),
    });
    await createPlannedVms(nb, await seedLabNetbox(nb), schedule.workload.provision);

    const fleet = await startWorkerFleet(options.workers, servers.workerDocument, servers.env, stateDir, log);
    cleanups.push(() => fleet.stop());
    log(`chaos: ${options.workers} worker processes serve "${CHAOS_TASK_QUEUE}"`);
    const vmwareBefore = await vmwareVms(deps);
    const plan = await planWave(client, CHAOS_TASK_QUEUE);
    log(`chaos: planned ${plan.size} VMs; faults on, the workload starts`);

    await injectFaults(servers, options.seed, options.faults);
    let restarts = 0;
    const killer = startKiller({
      client,
      schedule,
      points,
      kill: (k) => fleet.killAndReplace(k.worker),
      restartServer: async () => {
        restarts++;
        await servers.restartTemporal();
      },
      bindOutage: () => servers.bindOutage(schedule.bindOutageSeconds),
      log,
      maxGapMs: options.maxGapMs ?? 20_000,
      minGapMs: 2_500,
    });
    const workload = await runWorkload(
      client,
      CHAOS_TASK_QUEUE,
      schedule.workload,
      plan,
      started + options.timeoutMs,
    ).finally(() => killer.stop());
    // Read before anything else changes: what a VM without an outcome waits for.
    const running = await stillRunning(client).catch((err: unknown) => [`  (could not list: ${String(err)})`]);
    await servers.sims.admin.clearFaults();
    servers.vcsimProxy.setFaults(undefined);
    servers.netboxProxy.setFaults(undefined);
    const faults = await faultCounts(servers, killer.bindOutages, restarts);
    log('chaos: the workload is over; faults off, reading what it left');

    const observation = await observe({
      deps,
      admin: servers.sims.admin,
      nb,
      dns,
      vmwareBefore,
      migrations: workload.migrations,
      provisions: workload.provisions,
    });
    const rows = checkInvariants(observation);
    const outcomes = {
      ...Object.fromEntries(
        Object.entries(tally(workload.migrations.map((m) => m.outcome))).map(([k, v]) => [`migrate ${k}`, v]),
      ),
      ...Object.fromEntries(
        Object.entries(tally(workload.provisions.map((p) => p.outcome))).map(([k, v]) => [`provision ${k}`, v]),
      ),
      ...Object.fromEntries(
        Object.entries(tally(workload.provisions.filter((p) => p.teardown).map((p) => p.teardown!.outcome))).map(
          ([k, v]) => [`teardown ${k}`, v],
        ),
      ),
    };
    const seconds = Math.round((Date.now() - started) / 1000);
    const killed = killer.kills;
    const text = [
      '',
      invariantTable(rows),
      '',
      `kills: ${killed.length} of ${schedule.kills.length} scheduled (${killed.filter((k) => k.how === 'point').length} at their point, ${killed.filter((k) => k.how === 'fallback').length} fallbacks); Temporal restarts: ${restarts}`,
      ...killed.map(
        (k) =>
          `  ${String(k.atSeconds).padStart(6)}s worker ${k.worker + 1}: ${k.label}${k.how === 'fallback' ? ' (fallback)' : ''}${k.seen ? ` [${k.seen}]` : ''}${k.restartedServer ? ' + Temporal restart' : ''}`,
      ),
      'faults per dependency:',
      ...Object.entries(faults).map(
        ([dep, counts]) =>
          `  ${dep.padEnd(8)} ${Object.entries(counts)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}`,
      ),
      `outcomes: ${Object.entries(outcomes)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}; operator retries ${workload.operatorRetries}`,
      ...(workload.failures.size > 0
        ? [
            `failed workflows (${workload.failures.size}):`,
            ...[...workload.failures].map(([id, why]) => `  ${id}: ${why}`),
          ]
        : []),
      `run time: ${seconds} s`,
    ].join('\n');
    log(text);
    if (options.dumpFile)
      writeFileSync(
        options.dumpFile,
        JSON.stringify({ schedule, observation, kills: killed, faults, outcomes }, null, 2),
      );
    ok = rows.every((r) => r.count === 0);
    if (!ok) log([`still running when the workload ended (${running.length}):`, ...running].join('\n'));
    return {
      rows,
      kills: killed,
      faults,
      outcomes,
      operatorRetries: workload.operatorRetries,
      seconds,
      ok,
      text,
    };
  } finally {
    for (const cleanup of cleanups.reverse())
      await cleanup().catch((err: unknown) => log(`chaos: cleanup: ${String(err)}`));
    // A failed run keeps its state: the Temporal database holds every workflow's history.
    if (ok || process.env.CI) rmSync(stateDir, { recursive: true, force: true });
    else
      log(
        `chaos: kept ${stateDir}: read its histories with \`.tools/bin/temporal server start-dev --db-filename ${stateDir}/temporal.db --port 7299\``,
      );
  }
}
