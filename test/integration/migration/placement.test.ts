import type { migrationWave } from '../../../workflows/migration-wave';
import type { planMigration } from '../../../workflows/plan-migration';
import {
  approveWaveUpdate,
  cutoverPlanQuery,
  migrationStatusQuery,
  waveStatusQuery,
} from '../../../src/domain/messages';
import { placeVm } from '../../../cli/commands/place';
import { migrateVmWorkflowId } from '../../../src/domain/migration';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { spawnFerry } from '../../helpers/processes';
import { promisify } from 'node:util';
import { ESTATE } from '../../../lab/vcsim/estate';
import { toolPath } from '../../../lab/tools';
import { formatBytes, type PlacementRefusal } from '../../../src/domain/placement';
import { labWorkers, startMigrationLab, type MigrationLab } from '../../helpers/migration-lab';
import { connectTestTemporal, type TestTemporal } from '../../helpers/temporal';
import { readWaveOutcome } from '../../../lab/wave-result';

const GiB = 1024 ** 3;
const NODES = ['pve1', 'pve2', 'pve3'];

async function approveAll(wave: {
  executeUpdate: (u: typeof approveWaveUpdate, o: { args: [{ by: string; reason: string }] }) => Promise<unknown>;
}) {
  for (;;) {
    try {
      await wave.executeUpdate(approveWaveUpdate, { args: [{ by: 'lab-admin', reason: 'placement test' }] });
      return;
    } catch (err) {
      if (!/still loading/.test(String((err as { cause?: Error }).cause?.message))) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** The wave's result, or a failure naming what it is stuck on (its pending activities and their last failure). */
interface Explainable<T> {
  result(): Promise<T>;
  describe(): Promise<{ raw: { pendingActivities?: unknown[] | null; pendingChildren?: unknown[] | null } }>;
  fetchHistory(): Promise<{
    events?: Array<{
      workflowTaskFailedEventAttributes?: { failure?: { message?: string | null } | null } | null;
    }> | null;
  }>;
}

async function withinOrExplain<T>(wave: Explainable<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  try {
    const first = await Promise.race([wave.result(), late]);
    if (first !== 'late') return first;
    const { raw } = await wave.describe();
    const failures = ((await wave.fetchHistory()).events ?? []).flatMap(
      (e) => e.workflowTaskFailedEventAttributes?.failure?.message ?? [],
    );
    const pending = JSON.stringify({ activities: raw.pendingActivities ?? [], children: raw.pendingChildren ?? [] });
    throw new Error(
      `the wave did not end within ${ms} ms; pending: ${pending}; workflow task failures: ${failures.slice(-2).join(' | ')}`,
    );
  } finally {
    clearTimeout(timer);
  }
}

describe('placement: the wave places its VMs on the simulator nodes as plan said, and refuses what does not fit', () => {
  jest.setTimeout(600_000);
  let temporal: TestTemporal;
  beforeAll(async () => {
    temporal = await connectTestTemporal();
  });
  afterAll(async () => {
    await temporal?.close();
  });

  describe('on the sample cluster', () => {
    let lab: MigrationLab;
    beforeAll(async () => {
      lab = await startMigrationLab({ migration: { nodes: NODES } });
    });
    afterAll(async () => {
      await lab?.stop();
    });

    it('spreads a wave across the three nodes, each VM where plan put it, each disk on its storage', async () => {
      const workers = await labWorkers(temporal.nativeConnection, lab.deps);
      const selection = { names: ['mig-web01', 'mig-db01', 'mig-app02'] };
      await workers.run(async () => {
        const plan = await temporal.client.workflow.execute<typeof planMigration>('planMigration', {
          taskQueue: workers.taskQueue,
          workflowId: `${workers.taskQueue}-plan`,
          args: [selection],
        });
        expect(plan.placement?.ok).toBe(true);
        const planned = Object.fromEntries(plan.placement!.placed.map((p) => [p.name, p.node]));
        // Three VMs, three nodes with room: each on its own node (the least committed first).
        expect(new Set(Object.values(planned))).toEqual(new Set(NODES));
        const pve2 = plan.placement!.nodes.find((n) => n.node === 'pve2')!;
        expect([pve2.memoryBytes, pve2.limitBytes]).toEqual([32 * GiB, 32 * GiB]);

        const wave = await temporal.client.workflow.start<typeof migrationWave>('migrationWave', {
          taskQueue: workers.taskQueue,
          workflowId: `${workers.taskQueue}-wave`,
          args: [{ waveId: workers.taskQueue, selection }],
        });
        await approveAll(wave);
        const result = await readWaveOutcome(temporal.client, wave);
        expect(result.status.refused).toEqual([]);
        expect(result.status.vms.map((v) => [v.name, v.outcome])).toEqual(
          expect.arrayContaining(Object.keys(planned).map((n) => [n, 'migrated'])),
        );
        for (const [name, node] of Object.entries(planned)) {
          const [found] = await lab.deps.proxmox!.vms.findByName(name);
          expect([name, found?.node]).toEqual([name, node]);
          const config = (await lab.deps.proxmox!.config.get(found!.node, found!.vmid)).values;
          expect(String(config.scsi0)).toMatch(/^local-lvm:vm-\d+-disk-\d+/);
        }
        // plan told the truth about what the wave did.
        const key = (a: unknown) => JSON.stringify(a);
        expect(result.actions.map(key).sort()).toEqual(plan.actions.map(key).sort());
      });
    });
  });

  describe('ferry place: a VM waiting at approval moves to another node', () => {
    let lab: MigrationLab;
    beforeAll(async () => {
      lab = await startMigrationLab({ migration: { nodes: NODES } });
    });
    afterAll(async () => {
      await lab?.stop();
    });

    it('refuses a node that cannot hold it with the numbers, re-creates the shell on one that can, and the wave completes there', async () => {
      const workers = await labWorkers(temporal.nativeConnection, lab.deps);
      const web = (await lab.deps.vsphere!.discover()).inventory.vms.find((v) => v.name === 'mig-web01')!;
      const vmWorkflowId = migrateVmWorkflowId(lab.config.vsphere!.name!, web.moid);
      const nodesOfShell = () =>
        [...lab.pve.cluster.vms.values()].filter((v) => v.config.name === 'mig-web01').map((v) => v.node);
      await workers.run(async () => {
        const wave = await temporal.client.workflow.start<typeof migrationWave>('migrationWave', {
          taskQueue: workers.taskQueue,
          workflowId: `${workers.taskQueue}-wave`,
          args: [{ waveId: workers.taskQueue, selection: { names: ['mig-web01'] } }],
        });
        const vm = temporal.client.workflow.getHandle(vmWorkflowId);
        let waiting;
        for (let i = 0; i < 600 && waiting?.stage !== 'awaiting-approval'; i++) {
          waiting = await vm.query(migrationStatusQuery).catch(() => undefined);
          if (waiting?.stage !== 'awaiting-approval') await new Promise((r) => setTimeout(r, 200));
        }
        expect(waiting?.stage).toBe('awaiting-approval');
        const planned = waiting!.placement!.node;
        expect(nodesOfShell()).toEqual([planned]);
        const nicsBefore = (await lab.deps.proxmox!.config.get(planned, waiting!.vmid!)).values;
        // The cutover plan shows the placement: node, storage per disk, the node's memory commitment after.
        const plan = (await vm.query(cutoverPlanQuery))!;
        expect(plan.placement).toMatchObject({
          node: planned,
          disks: [
            { label: 'Hard disk 1', storage: 'local-lvm' },
            { label: 'Hard disk 2', storage: 'local-lvm' },
          ],
        });
        expect(plan.placement!.memory!.committedAfterBytes).toBeGreaterThanOrEqual(8 * GiB);

        // pve2 (32 GiB) gets a 28 GiB VM from someone else: mig-web01's 8 GiB no longer fit there.
        const full = planned === 'pve2' ? 'pve1' : 'pve2';
        const squatter = lab.pve.cluster.newVm(full, 990, {
          name: 'squatter',
          memory: String(full === 'pve2' ? 28 * 1024 : 60 * 1024),
          cores: '1',
        });
        squatter.createdMs -= 60_000; // old enough for /cluster/resources (the lab gives it pmxcfs's lag)
        const refused = placeVm(temporal.client, vmWorkflowId, {
          node: full,
          by: 'lab-admin',
          reason: 'more room there',
        });
        await expect(refused).rejects.toThrow(
          new RegExp(
            `place refused by ${vmWorkflowId}: mig-web01 cannot move to ${full}: memory on ${full}: needs 8 GiB, \\d+(\\.\\d)? GiB free \\(limit \\d+ GiB = 1\\.0 × \\d+ GiB; \\d+(\\.\\d)? GiB committed\\)`,
          ),
        );
        // The CLI as a person runs it: a node that does not exist.
        const configFile = path.join(lab.stateDir, `${workers.taskQueue}.yaml`);
        writeFileSync(configFile, stringify({ ...lab.document, worker: { taskQueue: workers.taskQueue } }));
        const cli = spawnFerry(
          ['-c', configFile, 'place', vmWorkflowId, '--node', 'pve9', '--by', 'lab-admin', '--reason', 'typo'],
          lab.env,
        );
        expect(await cli.exited).toBe(1);
        expect(cli.output()).toMatch(
          /place refused by .*: mig-web01 cannot move to pve9: pve9 is not a node of the cluster \(nodes: pve1, pve2, pve3\)/,
        );
        expect(nodesOfShell()).toEqual([planned]);

        const target = NODES.find((n) => n !== planned && n !== full)!;
        const { status } = await placeVm(temporal.client, vmWorkflowId, {
          node: target,
          by: 'lab-admin',
          reason: 'balance the nodes',
        });
        expect(status.placement!.node).toBe(target);
        expect(status.placementMoves).toEqual([
          expect.objectContaining({
            by: 'lab-admin',
            reason: 'balance the nodes',
            from: expect.objectContaining({ node: planned }),
            shellMoved: true,
          }),
        ]);
        // The simulator holds the shell only on the new node, with the VMware MACs again.
        expect(nodesOfShell()).toEqual([target]);
        const shellVmid = status.vmid!;
        const config = (await lab.deps.proxmox!.config.get(target, shellVmid)).values;
        expect([config.net0, config.net1, config.net2]).toEqual([nicsBefore.net0, nicsBefore.net1, nicsBefore.net2]);
        expect(config.efidisk0).toBeDefined();
        expect((await vm.query(cutoverPlanQuery))!.placement!.node).toBe(target);
        // The wave's status shows it too (told by signal).
        for (let i = 0; i < 50 && (await wave.query(waveStatusQuery)).vms[0]?.placement?.node !== target; i++)
          await new Promise((r) => setTimeout(r, 100));
        expect((await wave.query(waveStatusQuery)).vms[0]!.placement!.node).toBe(target);

        await approveAll(wave);
        await withinOrExplain(wave, 300_000);
        const result = await readWaveOutcome(temporal.client, wave);
        expect(result.status.vms.map((v) => [v.name, v.outcome, v.placement?.node])).toEqual([
          ['mig-web01', 'migrated', target],
        ]);
        expect(nodesOfShell()).toEqual([target]);
        const migrated = (await lab.deps.proxmox!.config.get(target, shellVmid)).values;
        expect(String(migrated.scsi0)).toMatch(/^local-lvm:vm-\d+-disk-\d+/);
        expect(result.actions).toContainEqual({ kind: 'remove-shell', vm: 'mig-web01', vmid: shellVmid });
      });
    });
  });

  // vcsim reports 1 TB × hosts as a datastore's capacity, less the provisioned disks of the VMs there as
  // free space, whatever file system the folder behind it is on (govmomi simulator/datastore.go). So the
  // datastore is filled through vCenter itself: a powered-off filler VM with a big disk on it, created
  // with govc, takes the room as it would on a real vCenter. The default headroom (10 % of capacity) stays.
  describe('with the migration datastore filled by another VM (through vCenter)', () => {
    let lab: MigrationLab;
    beforeAll(async () => {
      lab = await startMigrationLab({ migration: { nodes: NODES } });
    });
    afterAll(async () => {
      await lab?.stop();
    });

    /** vCenter's summary.capacity and summary.freeSpace of the migration datastore, as the host of `moid` sees it. */
    const room = async (moid: string) => {
      const found = (await lab.deps.vsphere!.readVmDetail(moid)).hostDatastores.find(
        (d) => d.name === ESTATE.migrationDatastore,
      )!;
      return { capacity: found.capacityBytes!, free: found.freeBytes! };
    };

    it("refuses a wave whose disks do not fit there before any vMotion, with vCenter's numbers", async () => {
      const before = await lab.deps.vsphere!.discover();
      const legacy = before.inventory.vms.find((v) => v.name === 'mig-legacy01')!;
      const empty = await room(legacy.moid);
      const headroom = Math.ceil(empty.capacity * 0.1);
      // Leave about 16 GiB of room beyond the headroom: mig-legacy01's 32 GiB disk must move there.
      const fillerMiB = Math.floor((empty.free - headroom - 16 * GiB) / 2 ** 20);
      const { config, password } = lab.vcsim;
      await promisify(execFile)(
        toolPath('govc'),
        [
          'vm.create',
          '-on=false',
          `-ds=${ESTATE.migrationDatastore}`,
          `-host=${ESTATE.clusterHosts[0]}`,
          `-disk=${fillerMiB}MB`,
          `-net=${ESTATE.portgroups.vlan100}`,
          'ferry-filler',
        ],
        {
          env: {
            ...process.env,
            GOVC_URL: `https://${config.user}:${password}@${config.host}:${config.port}/sdk`,
            GOVC_TLS_CA_CERTS: config.caFile,
            GOVC_PERSIST_SESSION: 'false',
            GOVC_DATACENTER: ESTATE.datacenter,
          },
        },
      );
      const filled = await room(legacy.moid);
      // vCenter counts the filler's provisioned disk against the datastore.
      expect(empty.free - filled.free).toBeGreaterThanOrEqual(fillerMiB * 2 ** 20);
      const expectedRoom = filled.free - Math.ceil(filled.capacity * 0.1);
      expect(expectedRoom).toBeLessThan(32 * GiB);

      const workers = await labWorkers(temporal.nativeConnection, lab.deps);
      await workers.run(async () => {
        const wave = await temporal.client.workflow.start<typeof migrationWave>('migrationWave', {
          taskQueue: workers.taskQueue,
          workflowId: `${workers.taskQueue}-wave`,
          args: [{ waveId: workers.taskQueue, selection: { names: ['mig-legacy01', 'mig-web01'] } }],
        });
        await withinOrExplain(wave, 90_000);
        const result = await readWaveOutcome(temporal.client, wave);
        const refused = Object.fromEntries(result.status.refused.map((r) => [r.name, r.refusals]));
        expect(Object.keys(refused).sort()).toEqual(['mig-legacy01', 'mig-web01']);
        const datastore = refused['mig-legacy01']!.find(
          (r) => r.code === 'placement-migration-datastore',
        ) as PlacementRefusal;
        // The numbers are vCenter's: its free space, less 10 % of its capacity.
        expect(datastore.need).toBe(32 * GiB);
        expect(datastore.room).toBe(Math.max(0, expectedRoom));
        expect(datastore.reason).toBe(
          `migration datastore nfs-migration: needs 32 GiB, ${formatBytes(expectedRoom, 'down')} free for every disk of the wave ` +
            `(${formatBytes(filled.free, 'down')} free, 10% (${formatBytes(Math.ceil(filled.capacity * 0.1), 'up')}) kept as headroom)`,
        );
        expect(refused['mig-web01']!.map((r) => r.code)).toContain('placement-migration-datastore');
        expect(result.status.vms).toEqual([]);
        // Nothing moved, nothing built.
        expect(result.actions.filter((a) => a.kind !== 'refuse' && !('zone' in a) && 'vm' in a)).toEqual([]);
        const after = await lab.deps.vsphere!.readVm(legacy.moid);
        expect(after.disks.map((d) => d.fileName)).toEqual(legacy.disks.map((d) => d.fileName));
        expect(await lab.deps.proxmox!.vms.findByName('mig-legacy01')).toEqual([]);
      });
    });
  });

  describe('a node filled between approval and cutover', () => {
    let lab: MigrationLab;
    beforeAll(async () => {
      // Only pve2 (32 GiB): mig-db01 (16 GiB) fits when planned.
      lab = await startMigrationLab({ migration: { nodes: ['pve2'] } });
    });
    afterAll(async () => {
      await lab?.stop();
    });

    it('stops that cutover at the decision with the reason, before the guest is touched', async () => {
      const workers = await labWorkers(temporal.nativeConnection, lab.deps);
      const before = await lab.deps.vsphere!.discover();
      const db = before.inventory.vms.find((v) => v.name === 'mig-db01')!;
      const vmWorkflowId = migrateVmWorkflowId(lab.config.vsphere!.name!, db.moid);
      await workers.run(async () => {
        const wave = await temporal.client.workflow.start<typeof migrationWave>('migrationWave', {
          taskQueue: workers.taskQueue,
          workflowId: `${workers.taskQueue}-wave`,
          args: [{ waveId: workers.taskQueue, selection: { names: ['mig-db01'] } }],
        });
        const vm = temporal.client.workflow.getHandle(vmWorkflowId);
        const stageIs = async (stage: string) => {
          let last: unknown;
          for (let i = 0; i < 300; i++) {
            const status = await vm.query(migrationStatusQuery).catch(() => undefined);
            if (status?.stage === stage) return status;
            last = status && {
              stage: status.stage,
              error: status.error,
              outcome: (status as { outcome?: string }).outcome,
            };
            await new Promise((r) => setTimeout(r, 200));
          }
          throw new Error(`${vmWorkflowId} never reached ${stage}; last: ${JSON.stringify(last)}`);
        };
        await stageIs('awaiting-approval');
        // Someone else puts a 20 GiB VM on pve2 meanwhile: with mig-db01's 16 GiB, 36 GiB > 32 GiB.
        const squatter = lab.pve.cluster.newVm('pve2', 990, {
          name: 'squatter',
          memory: String(20 * 1024),
          cores: '1',
        });
        squatter.createdMs -= 60_000; // long enough ago for /cluster/resources (the lab gives it pmxcfs's lag)
        await approveAll(wave);
        const stopped = await stageIs('awaiting-decision');
        expect(stopped.error).toMatch(
          /mig-db01 no longer fits where it was placed: memory on pve2: needs 16 GiB, \d+(\.\d)? GiB free/,
        );
        // The guest was not touched: still as it was on VMware.
        expect((await lab.deps.vsphere!.readVm(db.moid)).powerState).toBe(db.powerState);
        await wave.terminate('test over');
        await vm.terminate('test over');
      });
    });
  });
});
