import {
  assessInventory,
  bootOrder,
  describeAction,
  missingExistingVnets,
  nicActions,
  sameNetValue,
  liveImportSpec,
  nicWrites,
  pveNic,
  sdnActions,
  shellSpec,
  type MigrationAction,
} from '../../../../src/domain/migration';
import { disk, nic, PORTGROUPS, rules, vm } from './fixtures';

const RULES = rules({ withTrunkOverride: true });

const assessment = assessInventory(
  {
    portgroups: PORTGROUPS,
    vms: [
      vm({
        moid: 'vm-42',
        name: 'web01',
        numCpu: 6,
        numCoresPerSocket: 4,
        nics: [nic(4000), nic(4001, { backing: { kind: 'dvportgroup', portgroupKey: 'dvportgroup-300' } })],
        disks: [disk(2000), disk(2001)],
      }),
      vm({ moid: 'vm-43', name: 'db01', firmware: 'bios' }),
    ],
  },
  RULES,
);
const web01 = assessment.vms.find((a) => a.name === 'web01')!;
const db01 = assessment.vms.find((a) => a.name === 'db01')!;

describe('sdnActions', () => {
  it('creates the zone and the missing VNets, then applies once', () => {
    expect(sdnActions(assessment.vnetPlan, { zones: [], vnets: [] })).toEqual([
      { kind: 'create-sdn-zone', zone: 'ferry', bridge: 'vmbr0' },
      { kind: 'create-vnet', vnet: 'v100', zone: 'ferry', tag: 100, alias: 'PG-VLAN100' },
      { kind: 'apply-sdn' },
    ]);
  });

  it('does nothing when everything exists, and names override VNets that must exist but do not', () => {
    expect(sdnActions(assessment.vnetPlan, { zones: ['ferry'], vnets: ['v100'] })).toEqual([]);
    expect(missingExistingVnets(assessment.vnetPlan, { zones: ['ferry'], vnets: ['v100'] })).toEqual(['trunk1']);
    expect(missingExistingVnets(assessment.vnetPlan, { zones: ['ferry'], vnets: ['v100', 'trunk1'] })).toEqual([]);
  });

  it('skips the zone when only a VNet is missing', () => {
    expect(sdnActions(assessment.vnetPlan, { zones: ['ferry'], vnets: [] })).toEqual([
      { kind: 'create-vnet', vnet: 'v100', zone: 'ferry', tag: 100, alias: 'PG-VLAN100' },
      { kind: 'apply-sdn' },
    ]);
  });
});

describe('shellSpec', () => {
  it('builds a diskless q35 shell with the VMware CPU, memory and firmware, and the guest agent on', () => {
    expect(shellSpec(web01, { node: 'pve1', vcenter: 'vc.example.com' })).toEqual({
      node: 'pve1',
      vmid: 20042,
      name: 'web01',
      machine: 'q35',
      bios: 'ovmf',
      efidisk: { storage: 'local-lvm', efitype: '4m', preEnrolledKeys: false },
      sockets: 2,
      cores: 4,
      vcpus: 6,
      memory: 8192,
      ostype: 'l26',
      scsihw: 'virtio-scsi-single',
      agent: 'enabled=1',
      onboot: false,
      tags: ['ferry', 'migrated'],
      description: 'Migrated by ferry from vCenter vc.example.com, vm-42 ("web01").',
    });
    expect(shellSpec(web01, { node: 'pve1', vcenter: 'vc', guestAgent: false })).not.toHaveProperty('agent');
    expect(shellSpec(db01, { node: 'pve1', vcenter: 'vc' })).not.toHaveProperty('efidisk');
    expect(shellSpec(db01, { node: 'pve1', vcenter: 'vc' })).not.toHaveProperty('vcpus');
  });

  it('live import: the shell settings plus NICs with the VMware MACs, every disk import-from, boot order and live-restore', () => {
    const sources = { scsi0: '/mnt/pve/nfs/web01/web01.vmdk', scsi1: 'nfs:import/web01_1.vmdk' };
    expect(liveImportSpec(web01, { node: 'pve1', vcenter: 'vc' }, sources, 'local-lvm')).toEqual({
      ...shellSpec(web01, { node: 'pve1', vcenter: 'vc' }),
      nics: [
        { slot: 'net0', model: web01.nics[0]!.model, macaddr: web01.nics[0]!.mac, bridge: web01.nics[0]!.bridge },
        { slot: 'net1', model: web01.nics[1]!.model, macaddr: web01.nics[1]!.mac, bridge: web01.nics[1]!.bridge },
      ],
      importDisks: [
        { slot: 'scsi0', storage: 'local-lvm', source: '/mnt/pve/nfs/web01/web01.vmdk' },
        { slot: 'scsi1', storage: 'local-lvm', source: 'nfs:import/web01_1.vmdk' },
      ],
      boot: 'order=scsi0;net0',
      liveRestore: true,
    });
    expect(() => liveImportSpec(web01, { node: 'pve1', vcenter: 'vc' }, { scsi0: 'x' }, 'local-lvm')).toThrow(
      /no source for scsi1/,
    );
  });

  it('refuses to build a refused VM', () => {
    const refused = assessInventory({ portgroups: PORTGROUPS, vms: [vm({ moid: 'bad' })] }, RULES).vms[0]!;
    expect(() => shellSpec(refused, { node: 'pve1', vcenter: 'vc' })).toThrow(/cannot be built: moid "bad"/);
  });
});

describe('pveNic', () => {
  it('keeps the VMware MAC and model on the planned VNet', () => {
    expect(pveNic(web01.nics[0]!)).toEqual({
      slot: 'net0',
      model: 'virtio',
      macaddr: '00:50:56:AA:BB:A0',
      bridge: 'v100',
    });
  });
});

describe('nicActions', () => {
  it('sets every NIC of a new shell', () => {
    expect(nicActions(web01, {})).toEqual([
      { kind: 'set-nic', vm: 'web01', vmid: 20042, slot: 'net0', value: 'virtio=00:50:56:AA:BB:A0,bridge=v100' },
      { kind: 'set-nic', vm: 'web01', vmid: 20042, slot: 'net1', value: 'virtio=00:50:56:AA:BB:A1,bridge=trunk1' },
    ]);
  });

  it('leaves NICs that already match (PVE adds its own options), and fixes those that differ', () => {
    expect(
      nicActions(web01, {
        net0: 'virtio=00:50:56:aa:bb:a0,bridge=v100,firewall=0',
        net1: 'virtio=BC:24:11:00:00:01,bridge=trunk1',
      }),
    ).toEqual([
      { kind: 'set-nic', vm: 'web01', vmid: 20042, slot: 'net1', value: 'virtio=00:50:56:AA:BB:A1,bridge=trunk1' },
    ]);
    expect(nicWrites(web01, { net0: 'virtio=00:50:56:AA:BB:A0,bridge=v100' })).toEqual([
      {
        action: {
          kind: 'set-nic',
          vm: 'web01',
          vmid: 20042,
          slot: 'net1',
          value: 'virtio=00:50:56:AA:BB:A1,bridge=trunk1',
        },
        nic: { slot: 'net1', model: 'virtio', macaddr: '00:50:56:AA:BB:A1', bridge: 'trunk1' },
      },
    ]);
  });

  it.each([
    [undefined, false],
    [42, false],
    ['e1000=00:50:56:AA:BB:A0,bridge=v100', false],
    ['virtio=00:50:56:AA:BB:A0,bridge=v200', false],
    ['virtio=00:50:56:AA:BB:A0,bridge=v100,tag=5', true],
  ])('sameNetValue(%p) is %p', (current, same) => {
    expect(sameNetValue(current, 'virtio=00:50:56:AA:BB:A0,bridge=v100')).toBe(same);
  });
});

describe('bootOrder and descriptions', () => {
  it('boots from the first disk, then the first NIC', () => {
    expect(bootOrder(web01)).toBe('order=scsi0;net0');
    expect(bootOrder({ disks: [], nics: [] })).toBe('order=');
  });

  it('describes every action in one line', () => {
    const all: MigrationAction[] = [
      { kind: 'create-sdn-zone', zone: 'ferry', bridge: 'vmbr0' },
      { kind: 'create-vnet', vnet: 'v100', zone: 'ferry', tag: 100, alias: 'PG' },
      { kind: 'apply-sdn' },
      { kind: 'create-vm', vm: 'web01', vmid: 1, node: 'pve1' },
      { kind: 'set-nic', vm: 'web01', vmid: 1, slot: 'net0', value: 'v' },
      { kind: 'relocate', vm: 'web01', moid: 'vm-1', datastore: 'nfs' },
      { kind: 'await-approval', vm: 'web01' },
      { kind: 'shutdown-guest', vm: 'web01', moid: 'vm-1' },
      { kind: 'import-disk', vm: 'web01', vmid: 1, slot: 'scsi0', disk: 'Hard disk 1', storage: 'local' },
      { kind: 'live-import', vm: 'web01', vmid: 1, node: 'pve1', slots: ['scsi0', 'scsi1'], storage: 'local' },
      { kind: 'set-boot-order', vm: 'web01', vmid: 1, order: 'order=scsi0' },
      { kind: 'start-vm', vm: 'web01', vmid: 1 },
      { kind: 'refuse', vm: 'x', reasons: ['a', 'b'] },
    ];
    const lines = all.map(describeAction);
    expect(new Set(lines).size).toBe(all.length);
    expect(lines.every((l) => l.length > 10 && !l.includes('undefined'))).toBe(true);
    expect(lines.at(-1)).toBe('x: not migrated — a; b');
  });
});
