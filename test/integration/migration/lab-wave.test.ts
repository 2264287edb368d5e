import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { MigrationAction } from '../../../src/domain/migration';
import { nfsMigrationDir } from '../../../lab/shared-paths';
import { approveWaveUpdate } from '../../../src/domain/messages';
import type { migrationWave } from '../../../workflows/migration-wave';
import type { planMigration } from '../../../workflows/plan-migration';
import { PERMIT_KEYS, semaphoreWorkflowId } from '../../../src/domain/permits';
import { coordinationQueue, scopedLimitKey } from '../../../src/domain/task-queues';
import { labWorkers, useMigrationLab } from '../../helpers/migration-lab';
import { readWaveOutcome } from '../../../lab/wave-result';

const run = promisify(execFile);
const key = (a: MigrationAction) => JSON.stringify(a);
const vmOf = (a: MigrationAction) => ('vm' in a ? a.vm : '(sdn)');

describe('a wave over the whole lab estate', () => {
  jest.setTimeout(600_000);
  const suite = useMigrationLab();

  it('migrates every translatable VM, refuses the rest with reasons, and does what plan said', async () => {
    const workers = await labWorkers(suite.temporal.nativeConnection, suite.lab.deps);
    const selection = { folder: '/DC0/vm' };
    const before = await suite.lab.deps.vsphere!.discover();
    await workers.run(async () => {
      const plan = await suite.temporal.client.workflow.execute<typeof planMigration>('planMigration', {
        taskQueue: workers.taskQueue,
        workflowId: `${workers.taskQueue}-plan`,
        args: [selection],
      });
      // As `ferry migrate` starts it: on the coordination queue (its VMs run on the main queue).
      const wave = await suite.temporal.client.workflow.start<typeof migrationWave>('migrationWave', {
        taskQueue: coordinationQueue(workers.taskQueue),
        workflowId: `${workers.taskQueue}-wave`,
        args: [{ waveId: workers.taskQueue, selection }],
      });
      // Approving early is fine: the approval reaches each VM when it gets to the gate.
      for (;;) {
        try {
          await wave.executeUpdate(approveWaveUpdate, { args: [{ by: 'lab-admin', reason: 'lab wave' }] });
          break;
        } catch (err) {
          if (!/still loading/.test(String((err as { cause?: Error }).cause?.message))) throw err;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      const result = await readWaveOutcome(suite.temporal.client, wave);

      const refused = Object.fromEntries(result.status.refused.map((r) => [r.name, r.refusals.map((x) => x.code)]));
      expect(refused).toEqual({
        'mig-dmz01': ['nic-no-vnet'],
        'mig-indep01': ['independent-disk'],
        'mig-rdm01': ['rdm'],
        'mig-router01': ['nic-no-vnet'],
        'mig-snap01': ['snapshot'],
        'mig-std01': ['nic-standard-network'],
        'mig-tmpl01': ['template'],
      });
      const outcomes = Object.fromEntries(result.status.vms.map((v) => [v.name, v.outcome]));
      // Its disk stayed on LocalDS_0 (vcsim moves no files): refused before its approval, with the reason.
      expect(outcomes['mig-legacy01']).toBe('refused');
      expect(result.status.vms.find((v) => v.name === 'mig-legacy01')!.refusal).toMatch(
        /^Hard disk 1 is on LocalDS_0 .*, not on the migration datastore nfs-migration/,
      );
      const migrated = result.status.vms.filter((v) => v.name !== 'mig-legacy01');
      expect(migrated.length).toBeGreaterThanOrEqual(12);
      expect(migrated.every((v) => v.outcome === 'migrated')).toBe(true);
      // The Temporal UI names each VM's workflow by what it moves and where to.
      const web01 = result.status.vms.find((v) => v.name === 'mig-web01')!;
      const shown = await suite.temporal.client.workflow.getHandle(web01.workflowId).describe();
      expect(await shown.staticSummary()).toBe(`mig-web01 → VM ${20000 + Number(web01.moid.slice(3))} on pve1`);
      // The wave and the semaphores ran on the coordination queue, the VMs on the main queue; the semaphore
      // key is the main queue's.
      expect(shown.taskQueue).toBe(workers.taskQueue);
      expect((await wave.describe()).taskQueue).toBe(coordinationQueue(workers.taskQueue));
      const vmotion = await suite.temporal.client.workflow
        .getHandle(semaphoreWorkflowId(scopedLimitKey(workers.taskQueue, PERMIT_KEYS.vmotion)))
        .describe();
      expect(vmotion.taskQueue).toBe(coordinationQueue(workers.taskQueue));

      // plan told the truth: the same actions, except where reality refused mig-legacy01 after its vMotion.
      const planned = plan.actions
        .filter((a) => vmOf(a) !== 'mig-legacy01')
        .map(key)
        .sort();
      const done = result.actions
        .filter((a) => vmOf(a) !== 'mig-legacy01')
        .map(key)
        .sort();
      expect(done).toEqual(planned);
      const legacyDone = result.actions.filter((a) => vmOf(a) === 'mig-legacy01').map((a) => a.kind);
      // Refused before its gate (no await-approval), its shell removed.
      expect(legacyDone).toEqual(['create-vm', 'set-nic', 'relocate', 'remove-shell', 'refuse']);

      // Refused VMs were never touched: no Proxmox VM, VMware power state as before.
      const after = await suite.lab.deps.vsphere!.discover();
      const pveNames = new Set((await suite.lab.deps.proxmox!.vms.list()).map((v) => v.name));
      for (const name of Object.keys(refused)) {
        expect(pveNames.has(name)).toBe(false);
        const was = before.inventory.vms.find((v) => v.name === name)!;
        expect(after.inventory.vms.find((v) => v.name === name)!.powerState).toBe(was.powerState);
      }
      expect(after.inventory.vms.find((v) => v.name === 'mig-legacy01')!.powerState).toBe('poweredOn');
      expect(pveNames.has('mig-legacy01')).toBe(false);

      // Migrated VMs: stopped on Proxmox with the source's CPU, memory, firmware, MACs and VLANs (as
      // VNets), VMware guest off, every disk byte-identical.
      const vlanOf = new Map(after.inventory.portgroups.map((pg) => [pg.key, pg.vlan]));
      for (const vm of migrated) {
        const source = after.inventory.vms.find((v) => v.name === vm.name)!;
        expect(source.powerState).toBe('poweredOff');
        const pveVm = (await suite.lab.deps.proxmox!.vms.findByName(vm.name))[0]!;
        expect(pveVm.status).toBe('stopped');
        const config = (await suite.lab.deps.proxmox!.config.get(pveVm.node, pveVm.vmid)).values;
        const perSocket = Math.max(1, Math.min(source.numCoresPerSocket, source.numCpu));
        expect(Number(config.sockets) * Number(config.cores)).toBeGreaterThanOrEqual(source.numCpu);
        expect(config).toMatchObject({
          cores: String(perSocket),
          memory: String(source.memoryMb),
          bios: source.firmware === 'efi' ? 'ovmf' : 'seabios',
        });
        expect(config.efidisk0 !== undefined).toBe(source.firmware === 'efi');
        for (const [i, nic] of [...source.nics].sort((a, b) => a.key - b.key).entries()) {
          const vlan = nic.backing.kind === 'dvportgroup' ? vlanOf.get(nic.backing.portgroupKey) : undefined;
          expect(vlan?.kind).toBe('access');
          expect(config[`net${i}`]).toBe(
            `virtio=${nic.macAddress.toUpperCase()},bridge=v${vlan?.kind === 'access' ? vlan.vlanId : ''}`,
          );
        }
        for (const [i, disk] of source.disks.entries()) {
          const target = suite.lab.pve.cluster.storages.resolve(
            String(config[`scsi${i}`]).split(',')[0]!,
            pveVm.node,
          ).file;
          const vmdk = path.join(nfsMigrationDir(suite.lab.stateDir), disk.fileName.replace(/^\[[^\]]+\]\s*/, ''));
          expect((await run('qemu-img', ['compare', vmdk, target])).stdout).toContain('Images are identical');
        }
      }
    });
  });
});
