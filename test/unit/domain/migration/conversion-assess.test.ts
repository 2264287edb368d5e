import { CONVERSION_OFF, type ConversionPlan, type ConversionSettings } from '../../../../src/domain/conversion';
import {
  assessInventory,
  conversionDisksOf,
  conversionFactsOf,
  cutoverPlan,
  measuredThroughput,
  predictVmActions,
  withWaveConversion,
  type MigrationSettings,
} from '../../../../src/domain/migration';
import { disk, nic, PORTGROUPS, rules, vm } from './fixtures';

const LINUX: ConversionSettings = { ...CONVERSION_OFF, mode: 'linux' };
const FRESH = {
  existing: [],
  datastores: ['nfs-migration'],
  diskDatastores: { 'Hard disk 1': 'nfs-migration' },
  powerState: 'poweredOn' as const,
};
const SETTINGS = {
  node: 'pve1',
  migrationDatastore: 'nfs-migration',
  targetStorage: 'local-lvm',
  cutover: {
    mode: 'import' as const,
    shutdownTimeoutMs: 300_000,
    forcePowerOff: false,
    startAfter: true,
    importTimeoutMs: 3_600_000,
  },
};

function assess(conversion: ConversionSettings | undefined, guestId = 'debian12_64Guest') {
  const inventory = {
    portgroups: PORTGROUPS,
    vms: [vm({ moid: 'vm-42', name: 'app01', guestId, disks: [disk(2000), disk(2001)], nics: [nic(4000)] })],
  };
  return assessInventory(inventory, { ...rules(), conversion });
}

describe('conversion in the assessment', () => {
  it('plans a Linux guest as converted from vCenter facts, and predicts the conversion between the shutdown and the imports', () => {
    const { vms, vnetPlan } = assess(LINUX);
    expect(vms[0]!.conversion).toMatchObject({ convert: true, family: 'linux', inspected: false });
    const actions = predictVmActions(vms[0]!, FRESH, SETTINGS, vnetPlan, {
      zones: ['ferry'],
      vnets: ['v100'],
    }).actions.map((a) => a.kind);
    expect(actions.slice(actions.indexOf('shutdown-guest'))).toEqual([
      'shutdown-guest',
      'convert-guest',
      'import-disk',
      'import-disk',
      'set-boot-order',
      'start-vm',
    ]);
  });

  it('predicts no conversion where none is planned (off, or runs from before conversion)', () => {
    for (const conversion of [CONVERSION_OFF, undefined]) {
      const { vms, vnetPlan } = assess(conversion);
      expect(
        predictVmActions(vms[0]!, FRESH, SETTINGS, vnetPlan, { zones: ['ferry'], vnets: ['v100'] }).actions.map(
          (a) => a.kind,
        ),
      ).not.toContain('convert-guest');
    }
    expect(assess(undefined).vms[0]!.conversion).toBeUndefined();
  });

  it('puts an unconverted Windows guest on SATA and e1000e, with a note; runs from before conversion keep virtio', () => {
    const [windows] = assess(CONVERSION_OFF, 'windows2019srv_64Guest').vms;
    expect(windows!.disks.map((d) => d.slot)).toEqual(['sata0', 'sata1']);
    expect(windows!.nics.map((n) => n.model)).toEqual(['e1000e']);
    expect(windows!.notes).toContainEqual(expect.stringContaining('a Windows guest without VirtIO drivers'));
    expect(windows!.conversion).toMatchObject({ convert: false, code: 'off' });
    const [before] = assess(undefined, 'windows2019srv_64Guest').vms;
    expect(before!.disks.map((d) => d.slot)).toEqual(['scsi0', 'scsi1']);
    expect(before!.nics.map((n) => n.model)).toEqual(['virtio']);
  });

  it('keeps virtio for a Windows guest that virt-v2v gives VirtIO drivers', () => {
    const [windows] = assess(
      { ...CONVERSION_OFF, mode: 'all', virtioWin: '/srv/virtio-win.iso' },
      'windows2019srv_64Guest',
    ).vms;
    expect(windows!.disks.map((d) => d.slot)).toEqual(['scsi0', 'scsi1']);
    expect(windows!.conversion).toMatchObject({ convert: true, family: 'windows' });
  });

  it('adds the conversion to the cutover plan an approver signs, with its time in the expected downtime and its warnings', () => {
    const [a] = assess(LINUX).vms;
    const throughput = measuredThroughput([]);
    const converted = cutoverPlan(a!, 'import', 'local-lvm', throughput);
    const off = cutoverPlan({ ...a!, conversion: undefined }, 'import', 'local-lvm', throughput);
    expect(converted.conversion).toEqual(a!.conversion);
    expect(converted.expectedDowntimeSeconds - off.expectedDowntimeSeconds).toBe(180);
    const planned = a!.conversion as Extract<ConversionPlan, { convert: true }>;
    const warned = cutoverPlan(a!, 'import', 'local-lvm', throughput, 'poweredOn', {
      ...planned,
      warnings: ['no agent'],
    });
    expect(warned.warnings).toContain('no agent');
  });
});

describe('what conversion reads', () => {
  const [a] = assess(LINUX).vms;
  const datastores = [{ datastore: 'nfs-migration', storage: 'nfs-migration', path: '/mnt/pve/nfs-migration' }];

  it('takes the facts from the assessment and the firmware from vCenter', () => {
    expect(conversionFactsOf(a!, 'bios')).toEqual({
      vmName: 'app01',
      family: 'linux',
      firmware: 'bios',
      nics: [{ slot: 'net0', mac: '00:50:56:AA:BB:A0' }],
      disks: [{ slot: 'scsi0' }, { slot: 'scsi1' }],
    });
  });

  it('finds each disk in the storage that mounts the migration datastore, or says which are not there yet', () => {
    const onNfs = [
      { label: 'Hard disk 1', fileName: '[nfs-migration] app01/app01.vmdk' },
      { label: 'Hard disk 2', fileName: '[nfs-migration] app01/app01_1.vmdk' },
    ];
    expect(conversionDisksOf(a!, onNfs, datastores, 'nfs-migration')).toEqual({
      storage: 'nfs-migration',
      disks: [
        { slot: 'scsi0', source: 'app01/app01.vmdk' },
        { slot: 'scsi1', source: 'app01/app01_1.vmdk' },
      ],
    });
    expect(
      conversionDisksOf(
        a!,
        [onNfs[0]!, { label: 'Hard disk 2', fileName: '[LocalDS_0] app01/app01_1.vmdk' }],
        datastores,
        'nfs-migration',
      ),
    ).toEqual({
      problem: 'scsi1 ([LocalDS_0] app01/app01_1.vmdk) not on nfs-migration yet',
    });
    expect(conversionDisksOf(a!, onNfs, [], 'nfs-migration')).toEqual({
      problem: 'no Proxmox storage mounts the migration datastore nfs-migration',
    });
  });
});

describe("a wave's conversion mode", () => {
  it('replaces the configured mode and keeps its overrides; runs without conversion settings stay without', () => {
    const settings = {
      rules: { ...rules(), conversion: { ...LINUX, overrides: [{ vm: 'db*', mode: 'off' as const }] } },
    } as unknown as MigrationSettings;
    expect(withWaveConversion(settings, 'all').rules.conversion).toEqual({
      ...LINUX,
      mode: 'all',
      overrides: [{ vm: 'db*', mode: 'off' }],
    });
    expect(withWaveConversion(settings, undefined)).toBe(settings);
    const before = { rules: rules() } as unknown as MigrationSettings;
    expect(withWaveConversion(before, 'linux')).toBe(before);
  });
});
