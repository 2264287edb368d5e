import type { VmCdrom } from '../../../../src/domain/inventory';
import {
  assessInventory,
  createVmAction,
  cutoverPlan,
  describeAction,
  describeCdrom,
  hardwareChanges,
  liveImportSpec,
  normaliseIsoPath,
  planCdroms,
  predictVmActions,
  shellSpec,
  type MigrationRules,
  type VmLiveState,
} from '../../../../src/domain/migration';
import { disk, PORTGROUPS, rules, vm } from './fixtures';

function cdrom(key: number, overrides: Partial<VmCdrom> = {}): VmCdrom {
  return {
    key,
    label: `CD/DVD drive ${key - 2999}`,
    controllerType: 'ide',
    controllerBusNumber: 1,
    unitNumber: key - 3000,
    startConnected: true,
    backing: { kind: 'client-device' },
    ...overrides,
  };
}

const iso = (fileName: string): VmCdrom['backing'] => ({ kind: 'iso', fileName });
const ISO_MAP = {
  '[iso-ds] win/server2022.iso': 'local:iso/server2022.iso',
  '[iso-ds]virtio-win.iso': 'local:iso/virtio-win.iso',
};
const RULES: MigrationRules = { ...rules(), isoMap: ISO_MAP };
const SETTINGS = {
  node: 'pve1',
  migrationDatastore: 'nfs-migration',
  targetStorage: 'local-lvm',
  cutover: {
    mode: 'import' as const,
    shutdownTimeoutMs: 300_000,
    forcePowerOff: false,
    startAfter: false,
    importTimeoutMs: 3_600_000,
  },
};
const FRESH: VmLiveState = {
  existing: [],
  datastores: ['nfs-migration'],
  diskDatastores: { 'Hard disk 1': 'nfs-migration' },
  powerState: 'poweredOff',
};
const SDN = { zones: ['ferry'], vnets: ['v100'] };

describe('CD drives', () => {
  it('puts the first CD drive on ide2 with the ISO isoMap names', () => {
    expect(
      planCdroms(
        vm({ cdroms: [cdrom(3000, { backing: iso('[iso-ds] win/server2022.iso') })] }),
        [{ slot: 'scsi0' }],
        ISO_MAP,
      ),
    ).toEqual({
      cdroms: [{ slot: 'ide2', source: 'CD/DVD drive 1', iso: 'local:iso/server2022.iso' }],
      problems: [],
    });
  });

  it('matches isoMap keys exactly but for the space after the datastore bracket', () => {
    expect(normaliseIsoPath('[iso-ds]  win/x.iso')).toBe('[iso-ds] win/x.iso');
    expect(normaliseIsoPath('[iso-ds]win/x.iso')).toBe('[iso-ds] win/x.iso');
    expect(normaliseIsoPath(' not a path ')).toBe('not a path');
    const drives = planCdroms(
      vm({
        cdroms: [
          cdrom(3000, { backing: iso('[iso-ds] virtio-win.iso') }),
          cdrom(3001, { backing: iso('[iso-ds] WIN/server2022.iso') }),
        ],
      }),
      [],
      ISO_MAP,
    ).cdroms;
    expect(drives).toEqual([
      { slot: 'ide2', source: 'CD/DVD drive 1', iso: 'local:iso/virtio-win.iso' },
      {
        slot: 'ide3',
        source: 'CD/DVD drive 2',
        notCarried: 'ISO [iso-ds] WIN/server2022.iso, which migration.isoMap does not map',
      },
    ]);
  });

  it('gives an ISO without a map entry, a host drive, a disconnected ISO or an unknown backing an empty drive, saying what stayed behind', () => {
    const { cdroms } = planCdroms(
      vm({
        cdroms: [
          cdrom(3000, { backing: iso('[iso-ds] linux/rescue.iso') }),
          cdrom(3001, { backing: { kind: 'host-device', deviceName: '/vmfs/devices/cdrom/mpx.vmhba0:C0:T0:L0' } }),
          cdrom(3002, {
            controllerBusNumber: 0,
            unitNumber: 0,
            backing: iso('[iso-ds] win/server2022.iso'),
            startConnected: false,
          }),
          cdrom(3003, {
            controllerBusNumber: 0,
            unitNumber: 1,
            backing: { kind: 'other', backingType: 'VirtualCdromFutureBackingInfo' },
          }),
        ],
      }),
      [],
      ISO_MAP,
    );
    expect(cdroms).toEqual([
      {
        slot: 'ide2',
        source: 'CD/DVD drive 3',
        notCarried: 'ISO [iso-ds] win/server2022.iso, not connected at power-on in VMware',
      },
      { slot: 'ide3', source: 'CD/DVD drive 4', notCarried: 'a VirtualCdromFutureBackingInfo backing' },
      {
        slot: 'ide0',
        source: 'CD/DVD drive 1',
        notCarried: 'ISO [iso-ds] linux/rescue.iso, which migration.isoMap does not map',
      },
      {
        slot: 'ide1',
        source: 'CD/DVD drive 2',
        notCarried: "the ESXi host's CD drive /vmfs/devices/cdrom/mpx.vmhba0:C0:T0:L0 (host passthrough)",
      },
    ]);
    expect(describeCdrom(cdroms[2]!)).toBe(
      'ide0: empty CD drive (CD/DVD drive 1; not carried over: ISO [iso-ds] linux/rescue.iso, which migration.isoMap does not map)',
    );
  });

  it("keeps the client-device drive (vCenter's empty drive) empty without a remark", () => {
    const { cdroms } = planCdroms(vm({ cdroms: [cdrom(3000), cdrom(3001, { backing: { kind: 'none' } })] }), []);
    expect(cdroms).toEqual([
      { slot: 'ide2', source: 'CD/DVD drive 1' },
      { slot: 'ide3', source: 'CD/DVD drive 2' },
    ]);
    expect(describeCdrom(cdroms[0]!)).toBe('ide2: empty CD drive (CD/DVD drive 1)');
  });

  it('puts IDE drives before SATA ones and skips the IDE and SATA slots that migrated disks hold', () => {
    const cdroms = [
      cdrom(3000, { controllerType: 'ahci', controllerBusNumber: 0, unitNumber: 0 }),
      cdrom(3001),
      cdrom(3002),
    ];
    const disks = [{ slot: 'ide0' }, { slot: 'ide1' }, { slot: 'ide2' }, { slot: 'sata0' }];
    expect(planCdroms(vm({ cdroms }), disks).cdroms.map((c) => `${c.source} → ${c.slot}`)).toEqual([
      'CD/DVD drive 2 → ide3',
      'CD/DVD drive 3 → sata1',
      'CD/DVD drive 1 → sata2',
    ]);
  });

  it('with disk bus keep, an IDE disk keeps ide0 and the CD drive still gets ide2; with every slot taken it says so', () => {
    const ideVm = vm({
      disks: [disk(2000, { controllerType: 'ide', controllerKey: 200 })],
      cdroms: [cdrom(3000, { backing: iso('[iso-ds] win/server2022.iso') })],
    });
    const a = assessInventory({ portgroups: PORTGROUPS, vms: [ideVm] }, { ...RULES, diskBus: 'keep' }).vms[0]!;
    expect(a.disks.map((d) => d.slot)).toEqual(['ide0']);
    expect(a.cdroms).toEqual([{ slot: 'ide2', source: 'CD/DVD drive 1', iso: 'local:iso/server2022.iso' }]);

    const many = Array.from({ length: 11 }, (_, i) => cdrom(3000 + i));
    const plan = planCdroms(vm({ cdroms: many }), []);
    expect(plan.cdroms).toHaveLength(10);
    expect(plan.problems).toEqual(['CD/DVD drive 11: no free IDE or SATA slot left for a CD drive; not carried over']);
  });

  it('builds the shell with its CD drives, predicts and describes them the same way, and leaves them out of the boot order', () => {
    const a = assessInventory(
      {
        portgroups: PORTGROUPS,
        vms: [
          vm({
            cdroms: [
              cdrom(3000, { backing: iso('[iso-ds] win/server2022.iso') }),
              cdrom(3001, { backing: iso('[iso-ds] other.iso') }),
            ],
          }),
        ],
      },
      RULES,
    ).vms[0]!;
    const spec = shellSpec(a, { node: 'pve1', vcenter: 'vc' });
    expect(spec.cdroms).toEqual([{ slot: 'ide2', iso: 'local:iso/server2022.iso' }, { slot: 'ide3' }]);
    expect(spec).not.toHaveProperty('tpmstate');
    // The live import re-creates the shell with the same drives.
    expect(
      liveImportSpec(a, { node: 'pve1', vcenter: 'vc' }, { scsi0: 'nfs:import/web01.vmdk' }, 'local-lvm').cdroms,
    ).toEqual(spec.cdroms);

    const prediction = predictVmActions(a, FRESH, SETTINGS, { vnets: [] }, SDN);
    const create = prediction.actions[0]!;
    expect(create).toEqual(createVmAction(a, 'pve1'));
    expect(create).toEqual({
      kind: 'create-vm',
      vm: 'web01',
      vmid: 20042,
      node: 'pve1',
      cdroms: [
        { slot: 'ide2', source: 'CD/DVD drive 1', iso: 'local:iso/server2022.iso' },
        {
          slot: 'ide3',
          source: 'CD/DVD drive 2',
          notCarried: 'ISO [iso-ds] other.iso, which migration.isoMap does not map',
        },
      ],
    });
    expect(describeAction(create)).toBe(
      'create VM 20042 "web01" on pve1 (no disks yet; ide2: CD drive with local:iso/server2022.iso (CD/DVD drive 1); ' +
        'ide3: empty CD drive (CD/DVD drive 2; not carried over: ISO [iso-ds] other.iso, which migration.isoMap does not map))',
    );
    expect(prediction.actions.find((x) => x.kind === 'set-boot-order')).toMatchObject({ order: 'order=scsi0;net0' });
    expect(prediction).not.toHaveProperty('warnings');
    expect(cutoverPlan(a, 'import', 'local-lvm', { bytesPerSecond: 1, measured: false }).cdroms).toEqual(a.cdroms);
  });

  it('changes nothing for a VM without CD drives (nor for records read before ferry looked at them)', () => {
    const a = assessInventory({ portgroups: PORTGROUPS, vms: [vm()] }, RULES).vms[0]!;
    expect(a).not.toHaveProperty('cdroms');
    expect(shellSpec(a, { node: 'pve1', vcenter: 'vc' })).not.toHaveProperty('cdroms');
    expect(createVmAction(a, 'pve1')).toEqual({ kind: 'create-vm', vm: 'web01', vmid: 20042, node: 'pve1' });
    expect(describeAction(createVmAction(a, 'pve1'))).toBe('create VM 20042 "web01" on pve1 (no disks yet)');
  });
});

describe('vTPM', () => {
  const win11 = vm({
    moid: 'vm-77',
    name: 'win11',
    guestId: 'windows11_64Guest',
    firmware: 'efi',
    tpm: { key: 11000, label: 'Virtual TPM' },
  });

  it('refuses a VM with a vTPM by default, saying what to do', () => {
    const a = assessInventory({ portgroups: PORTGROUPS, vms: [win11] }, rules()).vms[0]!;
    expect(a.refusals).toEqual([
      {
        code: 'vtpm',
        subject: 'Virtual TPM',
        reason:
          'win11 has a virtual TPM, whose secrets cannot be carried over to Proxmox; set migration.tpm: new to give it a new, empty TPM ' +
          '(anything sealed to the old TPM, such as BitLocker keys, then needs its recovery key), or remove the vTPM in vCenter first',
      },
    ]);
    expect(a).not.toHaveProperty('tpm');
    const prediction = predictVmActions(a, FRESH, SETTINGS, { vnets: [] }, SDN);
    expect(prediction.actions).toEqual([{ kind: 'refuse', vm: 'win11', reasons: [a.refusals[0]!.reason] }]);
  });

  it('with tpm: new, gives the EFI shell a new TPM 2.0 state next to its EFI vars, and warns in the plan and the cutover plan', () => {
    const a = assessInventory({ portgroups: PORTGROUPS, vms: [win11] }, { ...rules(), tpm: 'new', efiStorage: 'fast' })
      .vms[0]!;
    expect(a.refusals).toEqual([]);
    expect(a.tpm).toEqual({ storage: 'fast', version: 'v2.0' });
    const spec = shellSpec(a, { node: 'pve1', vcenter: 'vc' });
    expect(spec).toMatchObject({
      bios: 'ovmf',
      efidisk: { storage: 'fast', efitype: '4m' },
      tpmstate: { storage: 'fast', version: 'v2.0' },
    });

    const prediction = predictVmActions(a, FRESH, SETTINGS, { vnets: [] }, SDN);
    expect(prediction.actions[0]).toEqual({
      kind: 'create-vm',
      vm: 'win11',
      vmid: 20077,
      node: 'pve1',
      tpm: { storage: 'fast', version: 'v2.0' },
    });
    expect(describeAction(prediction.actions[0]!)).toBe(
      'create VM 20077 "win11" on pve1 (no disks yet; tpmstate0: a new, empty TPM v2.0 on fast (secrets sealed to the VMware vTPM do not move))',
    );
    const warning =
      'win11 gets a new, empty TPM (tpmstate0, v2.0): secrets sealed to the VMware vTPM do not move. Have the BitLocker recovery key ready ' +
      '(or suspend BitLocker in the guest before the cutover), and expect to re-enrol whatever else the TPM held (Windows Hello, certificates with TPM-protected keys)';
    expect(prediction.warnings).toEqual([warning]);
    expect(cutoverPlan(a, 'import', 'local-lvm', { bytesPerSecond: 1, measured: false })).toMatchObject({
      tpm: { storage: 'fast', version: 'v2.0' },
      warnings: [warning],
    });
  });

  it('stops the cutover when a vTPM was added or removed after planning', () => {
    expect(hardwareChanges(vm(), win11)).toEqual(['a virtual TPM (Virtual TPM) was added']);
    expect(hardwareChanges(win11, vm())).toEqual(['the virtual TPM (Virtual TPM) was removed']);
    expect(hardwareChanges(win11, win11)).toEqual([]);
  });
});
