import { assessInventory } from '../../../../src/domain/migration';
import { disk, nic, PORTGROUPS, rules, vm } from './fixtures';

const RULES = rules();

const ESTATE = {
  portgroups: PORTGROUPS,
  vms: [
    vm({
      moid: 'vm-42',
      name: 'web01',
      nics: [nic(4000), nic(4001, { backing: { kind: 'dvportgroup', portgroupKey: 'dvportgroup-200' } })],
      disks: [disk(2000), disk(2001)],
    }),
    vm({
      moid: 'vm-43',
      name: 'db01',
      firmware: 'bios',
      numCpu: 4,
      numCoresPerSocket: 2,
      guestId: 'windows2019srv_64Guest',
    }),
    vm({
      moid: 'vm-44',
      name: 'snap01',
      hasSnapshot: true,
      nics: [nic(4000, { backing: { kind: 'dvportgroup', portgroupKey: 'dvportgroup-300' } })],
    }),
    vm({ moid: 'vm-45', name: 'indep01', disks: [disk(2000, { diskMode: 'independent_persistent' })] }),
    vm({
      moid: 'vm-46',
      name: 'legacy01',
      nics: [nic(4000, { backing: { kind: 'network', networkName: 'VM Network' } })],
    }),
    vm({ moid: 'vm-47', name: 'tmpl', template: true }),
    vm({ moid: 'vm-48', name: 'app server_2', guestId: 'freebsd13_64Guest' }),
    vm({
      moid: 'vm-49',
      name: 'trunked',
      nics: [nic(4000, { backing: { kind: 'dvportgroup', portgroupKey: 'dvportgroup-300' } })],
    }),
  ],
};

describe('assessInventory', () => {
  const result = assessInventory(ESTATE, RULES);
  const byName = new Map(result.vms.map((a) => [a.name, a]));

  it('plans a complete Proxmox VM for a translatable VM', () => {
    expect(byName.get('web01')).toEqual({
      moid: 'vm-42',
      name: 'web01',
      pveName: 'web01',
      vmid: 20042,
      firmware: {
        bios: 'ovmf',
        machine: 'q35',
        efidisk: { storage: 'local-lvm', efitype: '4m', preEnrolledKeys: false },
      },
      cpu: { sockets: 2, cores: 2 },
      memoryMb: 8192,
      ostype: { ostype: 'l26', known: true },
      nics: [
        {
          slot: 'net0',
          mac: '00:50:56:AA:BB:A0',
          model: 'virtio',
          bridge: 'v100',
          source: 'Network adapter 1 (PG-VLAN100)',
        },
        {
          slot: 'net1',
          mac: '00:50:56:AA:BB:A1',
          model: 'virtio',
          bridge: 'v200',
          source: 'Network adapter 2 (PG-VLAN200)',
        },
      ],
      disks: [
        {
          slot: 'scsi0',
          source: 'Hard disk 1',
          fileName: '[nfs-migration] web01/web01.vmdk',
          capacityBytes: 10 * 2 ** 30,
        },
        {
          slot: 'scsi1',
          source: 'Hard disk 2',
          fileName: '[nfs-migration] web01/web01_1.vmdk',
          capacityBytes: 10 * 2 ** 30,
        },
      ],
      refusals: [],
      notes: [],
    });
    expect(byName.get('db01')).toMatchObject({
      vmid: 20043,
      firmware: { bios: 'seabios' },
      ostype: { ostype: 'win10' },
      refusals: [],
    });
  });

  it('refuses what it cannot translate, with the reason, and nothing else', () => {
    const refused = Object.fromEntries(result.vms.map((a) => [a.name, a.refusals.map((r) => r.code)]));
    expect(refused).toEqual({
      'app server_2': [],
      db01: [],
      indep01: ['independent-disk'],
      legacy01: ['nic-standard-network'],
      snap01: ['snapshot', 'nic-no-vnet'],
      tmpl: ['template'],
      trunked: ['nic-no-vnet'],
      web01: [],
    });
  });

  it('plans VNets only for VMs that will move', () => {
    expect(result.vnetPlan.vnets.map((v) => v.id)).toEqual(['v100', 'v200']);
    expect(result.vnetPlan.untranslated).toEqual([]);
    expect(result.untranslatedNetworks.map((u) => u.network)).toEqual(['PG-TRUNK', 'VM Network']);
    const trunkOnly = assessInventory(ESTATE, RULES, (v) => v.name === 'trunked' || v.name === 'legacy01');
    expect(trunkOnly.vnetPlan.vnets).toEqual([]);
  });

  it('notes what a person should know without refusing', () => {
    expect(byName.get('app server_2')!.notes).toEqual([
      'guestId freebsd13_64Guest is not in ferry\'s table; ostype set to "other"',
      'named "app-server-2" in Proxmox (VM names there must be DNS names)',
    ]);
  });

  it('is deterministic and honours the selection', () => {
    expect(assessInventory(ESTATE, RULES)).toEqual(result);
    const only = assessInventory(ESTATE, RULES, (v) => v.name === 'db01');
    expect(only.vms.map((a) => a.name)).toEqual(['db01']);
    expect(only.vnetPlan.vnets.map((v) => v.id)).toEqual(['v100']);
  });

  it('translates an overridden trunk and stops refusing its VMs', () => {
    const withOverride = assessInventory(ESTATE, {
      ...RULES,
      network: { ...RULES.network, overrides: [{ network: 'PG-TRUNK', vnet: 'trunk1' }] },
    });
    expect(withOverride.vms.find((a) => a.name === 'trunked')!.refusals).toEqual([]);
    expect(withOverride.vms.find((a) => a.name === 'trunked')!.nics[0]!.bridge).toBe('trunk1');
  });

  it('refuses a VM whose moid yields no VMID', () => {
    const odd = assessInventory({ portgroups: PORTGROUPS, vms: [vm({ moid: 'vm-x1' })] }, RULES);
    expect(odd.vms[0]!.refusals.map((r) => r.code)).toEqual(['vmid-invalid']);
    expect(odd.vms[0]!.vmid).toBeUndefined();
  });
});
