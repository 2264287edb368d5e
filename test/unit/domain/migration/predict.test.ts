import {
  assessInventory,
  cutoverPlan,
  decisionProblem,
  filesOnDatastore,
  measuredThroughput,
  predictVmActions,
  ASSUMED_IMPORT_BYTES_PER_SECOND,
  type VmLiveState,
} from '../../../../src/domain/migration';
import { disk, nic, PORTGROUPS, rules, vm } from './fixtures';

const RULES = rules({ withTrunkOverride: true });
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
const assessment = assessInventory(
  {
    portgroups: PORTGROUPS,
    vms: [
      vm({ moid: 'vm-42', name: 'web01', disks: [disk(2000), disk(2001)], nics: [nic(4000)] }),
      vm({
        moid: 'vm-43',
        name: 'trunked',
        nics: [nic(4000, { backing: { kind: 'dvportgroup', portgroupKey: 'dvportgroup-300' } })],
      }),
      vm({ moid: 'vm-44', name: 'snap', hasSnapshot: true }),
    ],
  },
  RULES,
);
const [snap, trunked, web01] = assessment.vms;
const FRESH: VmLiveState = {
  existing: [],
  datastores: ['LocalDS_0'],
  diskDatastores: { 'Hard disk 1': 'LocalDS_0', 'Hard disk 2': 'LocalDS_0' },
  powerState: 'poweredOn',
};
const SDN = { zones: ['ferry'], vnets: ['v100', 'trunk1'] };

describe('predictVmActions', () => {
  it('predicts the whole migration of a new VM', () => {
    expect(predictVmActions(web01!, FRESH, SETTINGS, assessment.vnetPlan, SDN).actions).toEqual([
      { kind: 'create-vm', vm: 'web01', vmid: 20042, node: 'pve1' },
      { kind: 'set-nic', vm: 'web01', vmid: 20042, slot: 'net0', value: 'virtio=00:50:56:AA:BB:A0,bridge=v100' },
      { kind: 'relocate', vm: 'web01', moid: 'vm-42', datastore: 'nfs-migration' },
      { kind: 'await-approval', vm: 'web01' },
      { kind: 'shutdown-guest', vm: 'web01', moid: 'vm-42' },
      { kind: 'import-disk', vm: 'web01', vmid: 20042, slot: 'scsi0', disk: 'Hard disk 1', storage: 'local-lvm' },
      { kind: 'import-disk', vm: 'web01', vmid: 20042, slot: 'scsi1', disk: 'Hard disk 2', storage: 'local-lvm' },
      { kind: 'set-boot-order', vm: 'web01', vmid: 20042, order: 'order=scsi0;net0' },
    ]);
  });

  it('continues from what exists: an adopted shell, matching NICs, files already moved, a powered-off guest, an imported disk', () => {
    const live: VmLiveState = {
      existing: [{ vmid: 20042, name: 'web01' }],
      config: { net0: 'virtio=00:50:56:AA:BB:A0,bridge=v100,firewall=0', scsi0: 'local-lvm:vm-20042-disk-0,size=10G' },
      datastores: ['nfs-migration'],
      diskDatastores: { 'Hard disk 1': 'nfs-migration', 'Hard disk 2': 'nfs-migration' },
      powerState: 'poweredOff',
    };
    expect(
      predictVmActions(
        web01!,
        live,
        { ...SETTINGS, cutover: { ...SETTINGS.cutover, startAfter: true } },
        assessment.vnetPlan,
        SDN,
      ).actions,
    ).toEqual([
      { kind: 'await-approval', vm: 'web01' },
      { kind: 'import-disk', vm: 'web01', vmid: 20042, slot: 'scsi1', disk: 'Hard disk 2', storage: 'local-lvm' },
      { kind: 'set-boot-order', vm: 'web01', vmid: 20042, order: 'order=scsi0;net0' },
      { kind: 'start-vm', vm: 'web01', vmid: 20042 },
    ]);
  });

  it('predicts live-import: after the approval and shutdown, one create that runs the VM while the disks stream in', () => {
    const liveMode = { ...SETTINGS, cutover: { ...SETTINGS.cutover, mode: 'live-import' as const } };
    const actions = predictVmActions(web01!, FRESH, liveMode, assessment.vnetPlan, SDN).actions;
    expect(actions.slice(actions.findIndex((a) => a.kind === 'await-approval'))).toEqual([
      { kind: 'await-approval', vm: 'web01' },
      { kind: 'shutdown-guest', vm: 'web01', moid: web01!.moid },
      {
        kind: 'live-import',
        vm: 'web01',
        vmid: 20042,
        node: SETTINGS.node,
        slots: ['scsi0', 'scsi1'],
        storage: 'local-lvm',
      },
    ]);
  });

  it('refuses with the assessment’s reasons, a VMID clash, or a missing override VNet', () => {
    expect(predictVmActions(snap!, FRESH, SETTINGS, assessment.vnetPlan, SDN).actions).toEqual([
      { kind: 'refuse', vm: 'snap', reasons: [expect.stringContaining('has snapshots')] },
    ]);
    expect(
      predictVmActions(
        web01!,
        { ...FRESH, existing: [{ vmid: 20042, name: 'someone-else' }] },
        SETTINGS,
        assessment.vnetPlan,
        SDN,
      ).refusals,
    ).toEqual([expect.objectContaining({ code: 'vmid-clash' })]);
    expect(
      predictVmActions(trunked!, FRESH, SETTINGS, assessment.vnetPlan, { zones: ['ferry'], vnets: ['v100'] }).actions,
    ).toEqual([
      {
        kind: 'refuse',
        vm: 'trunked',
        reasons: ['VNet trunk1 is named in a network override but does not exist in Proxmox; create it first'],
      },
    ]);
  });
});

describe('filesOnDatastore', () => {
  it('needs the VM’s files and every disk on the datastore', () => {
    expect(filesOnDatastore(['nfs'], { a: 'nfs' }, 'nfs')).toBe(true);
    expect(filesOnDatastore(['nfs', 'other'], { a: 'nfs' }, 'nfs')).toBe(false);
    expect(filesOnDatastore(['nfs'], { a: 'other' }, 'nfs')).toBe(false);
    expect(filesOnDatastore([], {}, 'nfs')).toBe(false);
  });
});

describe('cutover plan and throughput', () => {
  it('estimates downtime from disk sizes and throughput, and lists NIC → VNet', () => {
    const plan = cutoverPlan(web01!, 'import', 'local-lvm', { bytesPerSecond: 2 ** 30, measured: true });
    expect(plan).toMatchObject({
      vm: 'web01',
      vmid: 20042,
      totalBytes: 20 * 2 ** 30,
      expectedDowntimeSeconds: 60 + 20,
      disks: [
        { slot: 'scsi0', disk: 'Hard disk 1', sizeBytes: 10 * 2 ** 30 },
        { slot: 'scsi1', disk: 'Hard disk 2', sizeBytes: 10 * 2 ** 30 },
      ],
      nics: [{ slot: 'net0', mac: '00:50:56:AA:BB:A0', vnet: 'v100', source: 'Network adapter 1 (PG-VLAN100)' }],
    });
    // live-import: shutdown plus one boot, however slow the copy (it runs behind the booted VM).
    expect(
      cutoverPlan(web01!, 'live-import', 'local-lvm', { bytesPerSecond: 1, measured: false }).expectedDowntimeSeconds,
    ).toBe(120);
  });

  it('measures throughput from finished imports, or says it assumed it', () => {
    expect(measuredThroughput([])).toEqual({ bytesPerSecond: ASSUMED_IMPORT_BYTES_PER_SECOND, measured: false });
    expect(
      measuredThroughput([
        { bytes: 300, seconds: 1 },
        { bytes: 100, seconds: 3 },
      ]),
    ).toEqual({ bytesPerSecond: 100, measured: true });
    // A disk found already imported (0 s) copied nothing and does not count.
    expect(
      measuredThroughput([
        { bytes: 300, seconds: 1 },
        { bytes: 100, seconds: 3 },
        { bytes: 10_000, seconds: 0 },
      ]),
    ).toEqual({ bytesPerSecond: 100, measured: true });
    expect(measuredThroughput([{ bytes: 10_000, seconds: 0 }])).toEqual({
      bytesPerSecond: ASSUMED_IMPORT_BYTES_PER_SECOND,
      measured: false,
    });
  });
});

describe('decisionProblem', () => {
  it.each([
    [{ by: 'alice', reason: 'window 22:00' }, undefined],
    [{ by: 'mallory', reason: 'x' }, 'mallory is not an approver (approvers: alice, bob)'],
    [{ by: 'alice', reason: '  ' }, 'a reason is required'],
    [{ by: 'alice' }, 'a reason is required'],
    [{ reason: 'x' }, 'say who decides: "by" is required'],
    [undefined, 'expected { by, reason }'],
  ])('%j → %p', (decision, problem) => {
    expect(decisionProblem(decision as never, ['alice', 'bob'])).toBe(problem);
  });
});
