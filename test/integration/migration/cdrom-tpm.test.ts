import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { govcFor } from '../../../lab/vcsim/govc';
import { nfsMigrationDir } from '../../../lab/shared-paths';
import { SAMPLE_ISO } from '../../../lab/proxmox-sim/sample-cluster';
import { ESTATE } from '../../../lab/vcsim/estate';
import type { VcsimLab } from '../../../lab/vcsim/vcsim-lab';
import { approveWaveUpdate, waveStatusQuery } from '../../../src/domain/messages';
import { element, typed } from '../../../src/vsphere/envelope';
import { asMoRef } from '../../../src/vsphere/read';
import { waitForTask } from '../../../src/vsphere/tasks';
import { child } from '../../../src/vsphere/xml';
import type { migrationWave } from '../../../workflows/migration-wave';
import type { planMigration } from '../../../workflows/plan-migration';
import { describeAction } from '../../../src/domain/migration';
import type { ActivityDeps } from '../../../activities';
import type { MigrationStatus } from '../../../src/domain/migration';
import { labWorkers, useMigrationLab, type MigrationSuite } from '../../helpers/migration-lab';
import { readWaveOutcome } from '../../../lab/wave-result';

/** govc against the lab's vcsim, as an administrator would use it. */
function govc(vcsim: VcsimLab, ...args: string[]): Promise<string> {
  const { host, port, user, caFile } = vcsim.config;
  return govcFor({ host, port, user, password: vcsim.password, caFile: caFile! })(...args);
}

/** A vTPM on a lab VM: govc has no command for it, ReconfigVM_Task does it (vcsim asks for no key provider). */
async function addVtpm(suite: MigrationSuite, name: string): Promise<void> {
  const vsphere = suite.lab.deps.vsphere!;
  const [ref] = (await govc(suite.lab.vcsim, 'ls', '-i', `/${ESTATE.datacenter}/vm/${ESTATE.scaleFolder}/${name}`))
    .trim()
    .split('\n');
  const vm = { type: 'VirtualMachine', value: ref!.replace(/^VirtualMachine:/, '') };
  const response = await vsphere.session.call('ReconfigVM_Task', vm, [
    element(
      'spec',
      element(
        'deviceChange',
        element('operation', 'add'),
        typed(
          'device',
          'VirtualTPM',
          element('key', -1),
          element('deviceInfo', element('label', 'Virtual TPM'), element('summary', 'Virtual TPM')),
        ),
      ),
    ),
  ]);
  await waitForTask(vsphere.session, asMoRef(child(response, 'returnval') ?? response, 'ReconfigVM_Task'), {
    step: 'add vTPM',
    method: 'ReconfigVM_Task',
    object: vm.value,
  });
}

/** The ISOs the lab's VMs get, as files on the NFS datastore. */
function placeIsos(stateDir: string): void {
  const isoDir = path.join(nfsMigrationDir(stateDir), 'iso');
  mkdirSync(isoDir, { recursive: true });
  for (const f of ['tools.iso', 'rescue.iso']) writeFileSync(path.join(isoDir, f), Buffer.alloc(64 * 1024, 0x2e));
}

const MAPPED_ISO = `[${ESTATE.migrationDatastore}] iso/tools.iso`;
const UNMAPPED_ISO = `[${ESTATE.migrationDatastore}] iso/rescue.iso`;
const PVE_ISO = `local:iso/${SAMPLE_ISO}`;

/** The lab's settings with the live-import cutover. */
/** live-import; the scale VMs' disks are blank, so their guests are not checked (verify-guest would wait for a decision). */
function liveImport(deps: ActivityDeps): ActivityDeps {
  const migration = deps.config.migration!;
  return {
    ...deps,
    config: {
      ...deps.config,
      migration: {
        ...migration,
        cutover: { ...migration.cutover, mode: 'live-import' },
        verify: { ...migration.verify, enabled: false },
      },
    },
  };
}

describe('CD drives and a vTPM, from vcsim to the Proxmox simulator', () => {
  jest.setTimeout(240_000);
  const suite = useMigrationLab({ migration: { isoMap: { [MAPPED_ISO]: PVE_ISO }, tpm: 'new' } });

  it('gives a VM its mapped ISO on ide2, another an empty drive, and a vTPM VM a new TPM; plan and run agree', async () => {
    const { vcsim, stateDir } = suite.lab;
    placeIsos(stateDir);
    // scale-0001 gets the mapped ISO; scale-0002 an ISO isoMap does not know and a second, empty drive.
    for (const vm of ['scale-0001', 'scale-0002']) await govc(vcsim, 'device.cdrom.add', '-vm', vm);
    await govc(vcsim, 'device.cdrom.insert', '-vm', 'scale-0001', '-ds', ESTATE.migrationDatastore, 'iso/tools.iso');
    await govc(vcsim, 'device.cdrom.insert', '-vm', 'scale-0002', '-ds', ESTATE.migrationDatastore, 'iso/rescue.iso');
    await govc(vcsim, 'device.cdrom.add', '-vm', 'scale-0002');
    // scale-0004 (EFI, as a Windows 11 VM would be) gets a vTPM.
    await addVtpm(suite, 'scale-0004');

    const workers = await labWorkers(suite.temporal.nativeConnection, suite.lab.deps);
    const selection = { names: ['scale-0001', 'scale-0002', 'scale-0004'] };
    await workers.run(async () => {
      const plan = await suite.temporal.client.workflow.execute<typeof planMigration>('planMigration', {
        taskQueue: workers.taskQueue,
        workflowId: `${workers.taskQueue}-plan`,
        args: [selection],
      });
      const byName = (name: string) => plan.vms.find((v) => v.name === name)!;
      const creates = Object.fromEntries(plan.vms.map((v) => [v.name, describeAction(v.actions[0]!)]));
      // vcsim labels a CD drive with its device name (cdrom-N); vCenter says `CD/DVD drive 1`.
      expect(creates['scale-0001']).toMatch(
        new RegExp(`; ide2: CD drive with ${PVE_ISO.replace(/\./g, '\\.')} \\(cdrom-\\d+\\)\\)$`),
      );
      expect(creates['scale-0002']).toMatch(
        new RegExp(
          `; ide2: empty CD drive \\(cdrom-\\d+; not carried over: ISO ${UNMAPPED_ISO.replace(/[[\].]/g, '\\$&')}, which migration.isoMap does not map\\);`,
        ),
      );
      // govc's new drive is the host's own CD drive (ATAPI backing): empty on Proxmox, and the plan says so.
      expect(creates['scale-0002']).toMatch(
        /; ide3: empty CD drive \(cdrom-\d+; not carried over: the ESXi host's CD drive cdrom-[\d-]+ \(host passthrough\)\)\)$/,
      );
      expect(creates['scale-0004']).toContain('; tpmstate0: a new, empty TPM v2.0 on local-lvm');
      expect(byName('scale-0004').warnings).toEqual([expect.stringContaining('BitLocker recovery key')]);

      const wave = await suite.temporal.client.workflow.start<typeof migrationWave>('migrationWave', {
        taskQueue: workers.taskQueue,
        workflowId: `${workers.taskQueue}-wave`,
        args: [{ waveId: workers.taskQueue, selection }],
      });
      for (let i = 0; ; i++) {
        const status = await wave.query(waveStatusQuery);
        if (status.vms.length === 3 && status.vms.every((v) => v.stage === 'awaiting-approval')) break;
        if (i > 600) throw new Error(`VMs never reached approval: ${JSON.stringify(status)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      await wave.executeUpdate(approveWaveUpdate, { args: [{ by: 'alice', reason: 'change 12' }] });
      const result = await readWaveOutcome(suite.temporal.client, wave);
      expect(result.status.vms.map((v) => [v.name, v.outcome])).toEqual(
        expect.arrayContaining([
          ['scale-0001', 'migrated'],
          ['scale-0002', 'migrated'],
          ['scale-0004', 'migrated'],
        ]),
      );
      const sortKey = (a: unknown) => JSON.stringify(a);
      expect([...result.actions].map(sortKey).sort()).toEqual([...plan.actions].map(sortKey).sort());

      const pve = suite.lab.deps.proxmox!;
      const config = async (name: string) => (await pve.config.get('pve1', byName(name).vmid!)).values;
      const mapped = await config('scale-0001');
      // PVE writes the ISO's size after it (the simulator does not, yet): compare the volume and media.
      expect(String(mapped.ide2)).toMatch(new RegExp(`^${PVE_ISO.replace(/\./g, '\\.')},media=cdrom(,size=\\w+)?$`));
      expect(mapped.boot).toBe('order=scsi0;net0');
      expect(mapped.tpmstate0).toBeUndefined();
      const unmapped = await config('scale-0002');
      expect(unmapped).toMatchObject({ ide2: 'none,media=cdrom', ide3: 'none,media=cdrom' });
      const withTpm = await config('scale-0004');
      expect(String(withTpm.tpmstate0)).toMatch(/^local-lvm:vm-\d+-disk-\d+,size=4M,version=v2\.0$/);
      expect(withTpm).toMatchObject({ bios: 'ovmf' });
      expect(withTpm.ide2).toBeUndefined();
    });
  });

  it('live-import re-creates the shell with the same ISO and a new TPM, running at once', async () => {
    placeIsos(suite.lab.stateDir);
    await govc(suite.lab.vcsim, 'device.cdrom.add', '-vm', 'scale-0006');
    await govc(
      suite.lab.vcsim,
      'device.cdrom.insert',
      '-vm',
      'scale-0006',
      '-ds',
      ESTATE.migrationDatastore,
      'iso/tools.iso',
    );
    await addVtpm(suite, 'scale-0006');
    const workers = await labWorkers(suite.temporal.nativeConnection, liveImport(suite.lab.deps));
    await workers.run(async () => {
      const wave = await suite.temporal.client.workflow.start<typeof migrationWave>('migrationWave', {
        taskQueue: workers.taskQueue,
        workflowId: `${workers.taskQueue}-wave`,
        args: [
          {
            waveId: workers.taskQueue,
            selection: { names: ['scale-0006'] },
            autoApprove: { by: 'alice', reason: 'live import' },
          },
        ],
      });
      const result = await readWaveOutcome(suite.temporal.client, wave);
      expect(result.status.vms[0]!.outcome).toBe('migrated');
      expect(result.actions.map((a) => a.kind)).toEqual([
        'create-vm',
        'set-nic',
        'relocate',
        'await-approval',
        'live-import',
      ]);
      expect(result.actions[0]).toMatchObject({
        cdroms: [{ slot: 'ide2', iso: PVE_ISO }],
        tpm: { storage: 'local-lvm', version: 'v2.0' },
      });
      const vmid = (
        (await suite.temporal.client.workflow.getHandle(result.status.vms[0]!.workflowId).result()) as MigrationStatus
      ).vmid!;
      const pve = suite.lab.deps.proxmox!;
      expect((await pve.power.status('pve1', vmid)).status).toBe('running');
      const config = (await pve.config.get('pve1', vmid)).values;
      expect(String(config.ide2)).toMatch(new RegExp(`^${PVE_ISO.replace(/\./g, '\\.')},media=cdrom(,size=\\w+)?$`));
      expect(String(config.tpmstate0)).toMatch(/^local-lvm:vm-\d+-disk-\d+,size=4M,version=v2\.0$/);
      expect(String(config.scsi0)).toMatch(/^local-lvm:/);
    });
  });

  it("fails the create with PVE's error when the ISO isoMap names is not on the node", async () => {
    const pve = suite.lab.deps.proxmox!;
    await expect(
      pve.vms.create({
        node: 'pve1',
        vmid: 29999,
        name: 'no-iso',
        cdroms: [{ slot: 'ide2', iso: 'local:iso/missing.iso' }],
      }),
    ).rejects.toThrow(/unable to create VM 29999 - volume 'local:iso\/missing\.iso' does not exist/);
  });
});
