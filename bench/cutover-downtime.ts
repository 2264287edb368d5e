/**
 * Benchmark: what a cutover's downtime costs per disk size, in each cutover mode. The same real guest
 * (the lab image, mig-app01, BIOS) with its disk grown to 1, 8 and 32 GiB — sparse, an eighth of it
 * written with data so that a copy has bytes to copy, as a disk an eighth full has — is migrated from
 * vcsim to the Proxmox simulator with `import`, `live-import` and `overlay`, started and verified.
 * Downtime is the guest's own figure (shutdown started → last check of verify-guest passed); for
 * `overlay` the live move after the verification is timed too.
 *
 *   npm run bench -- bench/cutover-downtime.ts [--sizes 1,8,32] [--modes import,live-import,overlay] [--fill 0.125]
 *
 * In `live-import` the guest boots at the start of the import stage and runs while its disk streams
 * in (the simulator's live restore, lab/proxmox-sim/qemu/live-restore.ts); ferry verifies it once the
 * stream has ended, so its downtime counts the stream. It prints figures; it is not a test.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { startMigrationSims, type MigrationSims } from '../lab/migration-lab';
import { guestImage } from '../lab/guest-image/paths';
import { nfsMigrationDir } from '../lab/shared-paths';
import { startDevServer } from '../lab/temporal-dev-server';
import { govcFor } from '../lab/vcsim/govc';
import { coordinationQueue } from '../src/domain/task-queues';
import { unpackWaveStatus, type MigrationStatus } from '../src/domain/migration';
import { writeWorkflowBundle } from '../worker/workflow-bundle';
import { startWorkerProcess } from '../test/helpers/worker-process';
import type { migrationWave } from '../workflows/migration-wave';

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1,8,32' },
    modes: { type: 'string', default: 'import,live-import,overlay' },
    fill: { type: 'string', default: '0.125' },
  },
});
const SIZES = args.sizes.split(',').map(Number);
const MODES = args.modes.split(',') as Array<'import' | 'live-import' | 'overlay'>;
const FILL = Number(args.fill);
const VM = 'mig-app01';
const GiB = 1024 ** 3;

interface Figure {
  mode: string;
  gib: number;
  downtimeSeconds?: number;
  verified: boolean;
  moveSeconds?: number;
  /** The import stage (import: the whole copy, in the downtime; overlay: making and attaching the overlays). */
  importSeconds?: number;
  outcome?: string;
  error?: string;
}

async function main(): Promise<void> {
  const server = await startDevServer();
  const bundleDir = mkdtempSync(path.join(tmpdir(), 'ferry-bench-bundle-'));
  const bundleFile = path.join(bundleDir, 'workflow-bundle.js');
  await writeWorkflowBundle(bundleFile);
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const figures: Figure[] = [];
  try {
    for (const gib of SIZES) {
      for (const mode of MODES) {
        const figure = await oneCutover(client, server.address, bundleFile, mode, gib);
        figures.push(figure);
        console.log(`  ${mode.padEnd(12)} ${String(gib).padStart(3)} GiB: ${describe(figure)}`);
      }
    }
  } finally {
    await connection.close();
    await server.stop();
    rmSync(bundleDir, { recursive: true, force: true });
  }
  console.log(
    `\ncutover downtime (shutdown started → guest verified), ${VM}'s disk ${(FILL * 100).toFixed(1)} % written, TCG guests:`,
  );
  console.log(
    `  ${'mode'.padEnd(12)} ${SIZES.map((s) => `${s} GiB`.padStart(12)).join('')}   ratio ${SIZES.at(-1)} GiB / ${SIZES[0]} GiB`,
  );
  for (const mode of MODES) {
    const row = SIZES.map((gib) => figures.find((f) => f.mode === mode && f.gib === gib));
    const cells = row
      .map((f) =>
        (f?.downtimeSeconds !== undefined
          ? `${f.downtimeSeconds.toFixed(1)} s${f.verified ? '' : '*'}`
          : 'failed'
        ).padStart(12),
      )
      .join('');
    const first = row[0]?.downtimeSeconds;
    const last = row.at(-1)?.downtimeSeconds;
    console.log(`  ${mode.padEnd(12)} ${cells}   ${first && last ? (last / first).toFixed(2) : '–'}`);
    console.log(
      `  ${'  import'.padEnd(12)} ${row.map((f) => (f?.importSeconds !== undefined ? `${f.importSeconds.toFixed(1)} s` : '–').padStart(12)).join('')}   (its stage, part of the downtime)`,
    );
    if (mode === 'overlay')
      console.log(
        `  ${'  live move'.padEnd(12)} ${row.map((f) => (f?.moveSeconds !== undefined ? `${f.moveSeconds.toFixed(1)} s` : '–').padStart(12)).join('')}   (after the verification; the VM runs)`,
      );
  }
  if (figures.some((f) => f.downtimeSeconds !== undefined && !f.verified)) console.log('  * not verified');
  if (MODES.includes('live-import'))
    console.log(
      '  live-import: the guest runs from the start of its import stage; ferry verifies it once the stream has ended',
    );
}

function describe(f: Figure): string {
  if (f.downtimeSeconds === undefined) return `${f.outcome ?? 'failed'}${f.error ? `: ${f.error}` : ''}`;
  return `downtime ${f.downtimeSeconds.toFixed(1)} s${f.verified ? ', verified' : ', not verified'}${f.moveSeconds !== undefined ? `; moved live in ${f.moveSeconds.toFixed(1)} s` : ''}`;
}

/** One lab, one VM, one cutover: the VM's disk grown to `gib` and partly written, migrated in `mode`. */
async function oneCutover(
  client: Client,
  temporalAddress: string,
  bundleFile: string,
  mode: Figure['mode'],
  gib: number,
): Promise<Figure> {
  const stateDir = mkdtempSync(path.join(tmpdir(), 'ferry-bench-downtime-'));
  const stamp = `${mode}-${gib}-${Date.now()}`;
  const sims = await startMigrationSims({
    stateDir,
    extraVms: 0,
    temporalAddress,
    vcenterName: `bench-${stamp}`,
    limits: { importPerStorage: 2 },
  });
  const taskQueue = `bench-${stamp}`;
  let worker: Awaited<ReturnType<typeof startWorkerProcess>> | undefined;
  try {
    await growGuestDisk(sims, stateDir, gib);
    dropPageCache();
    worker = await startWorkerProcess({
      config: {
        ...sims.document,
        migration: {
          ...(sims.document.migration as Record<string, unknown>),
          cutover: { mode, shutdownTimeout: '2m', forcePowerOff: true, startAfter: true, importTimeout: '2h' },
          verify: {
            enabled: true,
            probes: [{ tcp: guestImage().manifest.probe.port }],
            agentTimeout: '10m',
            networkTimeout: '30s',
            pollInterval: '500ms',
            onFailure: 'rollback',
          },
        },
        worker: { taskQueue, shutdownGraceTime: '1s' },
      },
      configFile: path.join(stateDir, 'ferry.yaml'),
      env: { ...sims.env, FERRY_WORKFLOW_BUNDLE: bundleFile },
      name: 'bench',
    });
    const wave = await client.workflow.start<typeof migrationWave>('migrationWave', {
      taskQueue: coordinationQueue(taskQueue),
      workflowId: `bench-downtime-${stamp}`,
      args: [{ waveId: stamp, selection: { names: [VM] }, autoApprove: { by: 'lab-admin', reason: 'benchmark' } }],
    });
    const row = unpackWaveStatus((await wave.result()).status).vms.find((v) => v.name === VM);
    if (!row) return { mode, gib, verified: false, error: 'not in the wave' };
    const status = (await client.workflow.getHandle(row.workflowId).result()) as MigrationStatus;
    const verification = status.verification;
    const moved = status.timings.find((t) => t.stage === 'move');
    const imported = status.timings.find((t) => t.stage === 'import');
    const downtime = verification?.downtimeSeconds;
    return {
      mode,
      gib,
      verified: verification?.state === 'verified',
      outcome: status.outcome,
      ...(downtime !== undefined ? { downtimeSeconds: downtime } : {}),
      ...(moved?.endedAt !== undefined ? { moveSeconds: (moved.endedAt - moved.startedAt) / 1000 } : {}),
      ...(imported?.endedAt !== undefined ? { importSeconds: (imported.endedAt - imported.startedAt) / 1000 } : {}),
      ...(status.error ? { error: status.error.split('\n')[0] } : {}),
    };
  } finally {
    await worker?.stop();
    await sims.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

/**
 * The disk just written sits in the page cache, so a copy would read memory, not the datastore: write it
 * out and drop the cache (root only), so the import reads what a real one reads.
 */
function dropPageCache(): void {
  execFileSync('sync');
  try {
    writeFileSync('/proc/sys/vm/drop_caches', '3');
  } catch (err) {
    console.log(`  (page cache not dropped: ${(err as Error).message}; the copies read from memory)`);
  }
}

/**
 * The VM's disk as `gib` GiB in vCenter and on the datastore: its flat extent grown (sparse) and a
 * share of it written with random data beyond the guest's own partitions; the descriptor's extent line
 * follows the new size.
 */
async function growGuestDisk(sims: MigrationSims, stateDir: string, gib: number): Promise<void> {
  const govc = govcFor({ ...sims.vcsim.config, password: sims.vcsim.password });
  await govc('vm.disk.change', '-vm', VM, '-disk.label', 'Hard disk 1', '-size', `${gib}G`);
  const dir = path.join(nfsMigrationDir(stateDir), VM);
  const flat = path.join(dir, `${VM}-flat.vmdk`);
  const descriptor = path.join(dir, `${VM}.vmdk`);
  const imageBytes = guestImage().manifest.diskBytes;
  execFileSync('truncate', ['-s', String(gib * GiB), flat]);
  writeFileSync(descriptor, readFileSync(descriptor, 'utf8').replace(/^RW \d+ FLAT/m, `RW ${(gib * GiB) / 512} FLAT`));
  const fd = openSync(flat, 'r+');
  try {
    const chunk = randomBytes(8 * 1024 * 1024);
    const written = Math.floor((FILL * gib * GiB) / chunk.length) * chunk.length;
    for (let at = 0; at < written; at += chunk.length) writeSync(fd, chunk, 0, chunk.length, imageBytes + at);
  } finally {
    closeSync(fd);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
