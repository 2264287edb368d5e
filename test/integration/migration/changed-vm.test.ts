import type { MigrationStatus } from '../../../src/domain/migration';
import { govcFor } from '../../../lab/vcsim/govc';
import { ESTATE } from '../../../lab/vcsim/estate';
import type { VcsimLab } from '../../../lab/vcsim/vcsim-lab';
import { approveWaveUpdate, waveStatusQuery } from '../../../src/domain/messages';
import type { migrationWave } from '../../../workflows/migration-wave';
import { labWorkers, useMigrationLab, type MigrationSuite } from '../../helpers/migration-lab';
import { until } from '../../helpers/wait';
import { readWaveOutcome } from '../../../lab/wave-result';

/** govc against the lab's vcsim, as an administrator would use it. */
function govc(vcsim: VcsimLab, ...args: string[]): Promise<string> {
  const { host, port, user, caFile } = vcsim.config;
  return govcFor({ host, port, user, password: vcsim.password, caFile: caFile! })(...args);
}

/**
 * Runs a one-VM wave to the approval gate, lets `change` edit the VMware VM, approves, and returns the
 * wave's result with the VM workflow's own.
 */
async function approveAfterChange(suite: MigrationSuite, name: string, change: () => Promise<void>) {
  const workers = await labWorkers(suite.temporal.nativeConnection, suite.lab.deps);
  return workers.run(async () => {
    const wave = await suite.temporal.client.workflow.start<typeof migrationWave>('migrationWave', {
      taskQueue: workers.taskQueue,
      workflowId: `${workers.taskQueue}-wave`,
      args: [{ waveId: workers.taskQueue, selection: { names: [name] } }],
    });
    const waiting = await until(`${name} at the approval gate`, async () => {
      const s = await wave.query(waveStatusQuery);
      return s.vms[0]?.stage === 'awaiting-approval' ? s.vms[0] : undefined;
    });
    await change();
    await wave.executeUpdate(approveWaveUpdate, { args: [{ by: 'alice', reason: 'change 77' }] });
    const result = await readWaveOutcome(suite.temporal.client, wave);
    const vm = (await suite.temporal.client.workflow.getHandle(waiting.workflowId).result()) as MigrationStatus;
    return { result, vm };
  });
}

/** Nothing reached Proxmox but the disk-less shell: no disk slot, no import task, no volume but an EFI disk. */
async function expectNoDiskImported(suite: MigrationSuite, vmid: number) {
  const pve = suite.lab.deps.proxmox!;
  const node = suite.lab.deps.config.migration!.node;
  const config = (await pve.config.get(node, vmid)).values;
  expect(Object.keys(config).filter((k) => /^(scsi|sata|ide|virtio|unused)\d+$/.test(k))).toEqual([]);
  const tasks = suite.lab.pve.cluster.tasks.history.filter((t) => t.id === String(vmid));
  expect(tasks.length).toBeGreaterThan(0); // the shell was made: the check below looks at the right VM
  expect(tasks.filter((t) => t.imports > 0 || t.type === 'qmmove')).toEqual([]);
  const volumes = (await pve.storage.content(node, suite.lab.deps.config.migration!.targetStorage, { vmid })).map(
    (v) => v.volid,
  );
  expect(volumes).toEqual(config.efidisk0 === undefined ? [] : [String(config.efidisk0).split(',')[0]]);
  expect((await pve.power.status(node, vmid)).status).toBe('stopped');
}

describe('a VMware VM changed between planning and the approved cutover', () => {
  jest.setTimeout(300_000);
  const suite = useMigrationLab();

  it('a disk added after the approval gate was reached: refused as vm-changed, VMware keeps running, nothing imported', async () => {
    const vsphere = suite.lab.deps.vsphere!;
    const moid = (await vsphere.discover()).inventory.vms.find((v) => v.name === 'mig-web01')!.moid;
    expect((await vsphere.readVm(moid)).powerState).toBe('poweredOn');

    const { result, vm } = await approveAfterChange(suite, 'mig-web01', async () => {
      await govc(
        suite.lab.vcsim,
        'vm.disk.create',
        '-vm',
        'mig-web01',
        '-ds',
        ESTATE.migrationDatastore,
        '-name',
        'mig-web01/added',
        '-size',
        '1G',
      );
    });

    const added = (await vsphere.readVm(moid)).disks.find((d) => /added/.test(d.fileName))!;
    expect(added).toBeDefined();
    expect(result.status.vms).toEqual([
      expect.objectContaining({ name: 'mig-web01', state: 'finished', outcome: 'refused' }),
    ]);
    expect(vm.refusals).toEqual([
      {
        code: 'vm-changed',
        subject: 'mig-web01',
        reason: `mig-web01 changed since it was planned: disk ${added.label} (key ${added.key}) was added; run the migration again to plan the VM as it is now`,
      },
    ]);
    // Approved, then refused: no step of the cutover ran.
    expect(vm.actions.map((a) => a.kind)).toEqual([
      'create-vm',
      'set-nic',
      'set-nic',
      'set-nic',
      'relocate',
      'await-approval',
      'refuse',
    ]);
    expect(vm.approval).toMatchObject({ by: 'alice' });
    expect(result.actions).toContainEqual({ kind: 'refuse', vm: 'mig-web01', reasons: [vm.refusals[0]!.reason] });

    expect((await vsphere.readVm(moid)).powerState).toBe('poweredOn');
    await expectNoDiskImported(suite, vm.vmid!);
  });

  it('a NIC MAC changed after the approval gate was reached: refused as vm-changed naming both MACs, VMware keeps running', async () => {
    // Scale VMs are powered off in the estate: this one runs, so a shutdown would show.
    const vsphere = suite.lab.deps.vsphere!;
    const moid = (await vsphere.discover()).inventory.vms.find((v) => v.name === 'scale-0001')!.moid;
    await vsphere.powerOn(moid);
    const before = await vsphere.readVm(moid);
    expect(before.powerState).toBe('poweredOn');
    const nic = before.nics[0]!;
    const portgroup = (await vsphere.discover()).inventory.portgroups.find(
      (pg) => nic.backing.kind === 'dvportgroup' && pg.key === nic.backing.portgroupKey,
    )!;
    const mac = '00:50:56:3f:12:34'; // in VMware's range for manual addresses, unlike any generated one

    const { result, vm } = await approveAfterChange(suite, 'scale-0001', async () => {
      await govc(
        suite.lab.vcsim,
        'vm.network.change',
        '-vm',
        'scale-0001',
        '-net',
        portgroup.name,
        '-net.address',
        mac,
        'ethernet-0',
      );
    });

    expect((await vsphere.readVm(moid)).nics[0]!.macAddress).toBe(mac);
    expect(result.status.vms).toEqual([
      expect.objectContaining({ name: 'scale-0001', state: 'finished', outcome: 'refused' }),
    ]);
    expect(vm.refusals).toEqual([
      {
        code: 'vm-changed',
        subject: 'scale-0001',
        reason: `scale-0001 changed since it was planned: NIC ${nic.label} MAC changed from ${nic.macAddress} to ${mac}; run the migration again to plan the VM as it is now`,
      },
    ]);
    expect(vm.actions.map((a) => a.kind)).toEqual(['create-vm', 'set-nic', 'relocate', 'await-approval', 'refuse']);

    expect((await vsphere.readVm(moid)).powerState).toBe('poweredOn');
    await expectNoDiskImported(suite, vm.vmid!);
  });

  it('a disk grown after the approval gate was reached: refused as vm-changed naming both sizes, VMware keeps running', async () => {
    // Without the size check the cutover shut the guest down and, in the lab (vcsim leaves the file as
    // it was), migrated the old smaller disk as if nothing had happened.
    const vsphere = suite.lab.deps.vsphere!;
    const moid = (await vsphere.discover()).inventory.vms.find((v) => v.name === 'scale-0003')!.moid;
    await vsphere.powerOn(moid);
    const planned = (await vsphere.readVm(moid)).disks[0]!;

    const { result, vm } = await approveAfterChange(suite, 'scale-0003', async () => {
      await govc(
        suite.lab.vcsim,
        'vm.disk.change',
        '-vm',
        'scale-0003',
        '-disk.key',
        String(planned.key),
        '-size',
        '2G',
      );
    });

    const grown = 2 * 2 ** 30;
    expect((await vsphere.readVm(moid)).disks[0]!.capacityBytes).toBe(grown);
    expect(result.status.vms).toEqual([
      expect.objectContaining({ name: 'scale-0003', state: 'finished', outcome: 'refused' }),
    ]);
    expect(vm.refusals).toEqual([
      {
        code: 'vm-changed',
        subject: 'scale-0003',
        reason: `scale-0003 changed since it was planned: disk ${planned.label} (key ${planned.key}) was ${planned.capacityBytes} bytes, is now ${grown}; run the migration again to plan the VM as it is now`,
      },
    ]);
    expect(vm.actions.map((a) => a.kind)).toEqual(['create-vm', 'set-nic', 'relocate', 'await-approval', 'refuse']);

    expect((await vsphere.readVm(moid)).powerState).toBe('poweredOn');
    await expectNoDiskImported(suite, vm.vmid!);
  });
});
