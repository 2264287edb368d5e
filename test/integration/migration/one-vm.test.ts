import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import type { migrationWave } from '../../../workflows/migration-wave';
import type { planMigration } from '../../../workflows/plan-migration';
import { approveWaveUpdate, waveStatusQuery } from '../../../src/domain/messages';
import { nfsMigrationDir } from '../../../lab/shared-paths';
import { labWorkers, useMigrationLab } from '../../helpers/migration-lab';
import { readWaveOutcome } from '../../../lab/wave-result';

const run = promisify(execFile);

describe('migrating one VM from vcsim to the Proxmox simulator', () => {
  jest.setTimeout(240_000);
  const suite = useMigrationLab();

  it('plans, waits for approval, and ends with a stopped Proxmox VM matching the source', async () => {
    const workers = await labWorkers(suite.temporal.nativeConnection, suite.lab.deps);
    const selection = { names: ['mig-web01'] };
    await workers.run(async () => {
      const plan = await suite.temporal.client.workflow.execute<typeof planMigration>('planMigration', {
        taskQueue: workers.taskQueue,
        workflowId: `${workers.taskQueue}-plan`,
        args: [selection],
      });
      // A selection by vSphere tag (the lab tags mig-web01 and mig-db01).
      const byTag = await suite.temporal.client.workflow.execute<typeof planMigration>('planMigration', {
        taskQueue: workers.taskQueue,
        workflowId: `${workers.taskQueue}-plan-tag`,
        args: [{ tag: 'ferry/lab-wave' }],
      });
      expect(byTag.vms.map((v) => v.name)).toEqual(['mig-db01', 'mig-web01']);
      const wave = await suite.temporal.client.workflow.start<typeof migrationWave>('migrationWave', {
        taskQueue: workers.taskQueue,
        workflowId: `${workers.taskQueue}-wave`,
        args: [{ waveId: workers.taskQueue, selection }],
      });
      // Wait until the VM waits for approval, then approve the wave.
      for (let i = 0; ; i++) {
        const status = await wave.query(waveStatusQuery);
        if (status.vms[0]?.stage === 'awaiting-approval') break;
        if (i > 600) throw new Error(`VM never reached approval: ${JSON.stringify(status)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      await expect(
        wave.executeUpdate(approveWaveUpdate, { args: [{ by: 'mallory', reason: 'go' }] }),
      ).rejects.toMatchObject({
        cause: { message: 'mallory is not an approver (approvers: lab-admin, alice)' },
      });
      await wave.executeUpdate(approveWaveUpdate, { args: [{ by: 'alice', reason: 'change 42' }] });
      const result = await readWaveOutcome(suite.temporal.client, wave);

      expect(result.status.vms).toEqual([
        expect.objectContaining({ name: 'mig-web01', state: 'finished', outcome: 'migrated' }),
      ]);
      const sortKey = (a: unknown) => JSON.stringify(a);
      expect([...result.actions].map(sortKey).sort()).toEqual([...plan.actions].map(sortKey).sort());

      const vmid = plan.vms[0]!.vmid!;
      const config = (await suite.lab.deps.proxmox!.config.get('pve1', vmid)).values;
      const source = await suite.lab.deps.vsphere!.readVm(plan.vms[0]!.moid);
      const perSocket = Math.max(1, source.numCoresPerSocket);
      expect(config).toMatchObject({
        name: 'mig-web01',
        bios: source.firmware === 'efi' ? 'ovmf' : 'seabios',
        machine: 'q35',
        sockets: String(Math.ceil(source.numCpu / perSocket)),
        cores: String(perSocket),
        memory: String(source.memoryMb),
        boot: 'order=scsi0;net0',
      });
      expect(String(config.efidisk0)).toMatch(/^local-lvm:.*efitype=4m.*pre-enrolled-keys=0/);
      source.nics.forEach((nic, i) =>
        expect(String(config[`net${i}`])).toContain(`=${nic.macAddress.toUpperCase()},bridge=v`),
      );
      expect((await suite.lab.deps.proxmox!.power.status('pve1', vmid)).status).toBe('stopped');

      // Every disk is the same disk: qemu-img compare the VMware VMDK with the Proxmox volume.
      for (const [i, disk] of source.disks.entries()) {
        const volume = String(config[`scsi${i}`]).split(',')[0]!;
        const target = suite.lab.pve.cluster.storages.resolve(volume, 'pve1').file;
        const vmdk = path.join(nfsMigrationDir(suite.lab.stateDir), disk.fileName.replace(/^\[[^\]]+\]\s*/, ''));
        const { stdout } = await run('qemu-img', ['compare', vmdk, target]);
        expect(stdout).toContain('Images are identical');
      }
    });
  });
});
