import { mapNics, netConfigValue, planVnets } from '../../../../src/domain/migration';
import type { PortgroupRecord } from '../../../../src/domain/inventory';
import { nic, PORTGROUPS, vm } from './fixtures';

const byKey = new Map<string, PortgroupRecord>(PORTGROUPS.map((pg) => [pg.key, pg]));
const plan = planVnets(
  PORTGROUPS,
  {
    portgroupKeys: new Set(['dvportgroup-100', 'dvportgroup-200', 'dvportgroup-300']),
    standardNetworks: new Set(['VM Network']),
  },
  { zone: 'ferry', bridge: 'vmbr0', vnetPrefix: 'v', overrides: [] },
);

describe('mapNics', () => {
  it('keeps each MAC, orders slots by device key and attaches to the planned VNet', () => {
    const source = vm({
      nics: [
        nic(4001, {
          label: 'Network adapter 2',
          backing: { kind: 'dvportgroup', portgroupKey: 'dvportgroup-200' },
          macAddress: '00:50:56:01:02:03',
        }),
        nic(4000, { label: 'Network adapter 1', deviceType: 'e1000e', macAddress: '00:0c:29:aa:bb:cc' }),
      ],
    });
    const { nics, refusals } = mapNics(source, byKey, plan, 'virtio');
    expect(refusals).toEqual([]);
    expect(nics).toEqual([
      {
        slot: 'net0',
        mac: '00:0C:29:AA:BB:CC',
        model: 'virtio',
        bridge: 'v100',
        source: 'Network adapter 1 (PG-VLAN100)',
      },
      {
        slot: 'net1',
        mac: '00:50:56:01:02:03',
        model: 'virtio',
        bridge: 'v200',
        source: 'Network adapter 2 (PG-VLAN200)',
      },
    ]);
    expect(netConfigValue(nics[0]!)).toBe('virtio=00:0C:29:AA:BB:CC,bridge=v100');
  });

  it('keeps the VMware device model when asked and PVE has it', () => {
    const source = vm({
      nics: [
        nic(4000, { deviceType: 'vmxnet3' }),
        nic(4001, { deviceType: 'e1000' }),
        nic(4002, { deviceType: 'e1000e' }),
        nic(4003, { deviceType: 'pcnet32' }),
      ],
    });
    expect(mapNics(source, byKey, plan, 'keep').nics.map((n) => n.model)).toEqual([
      'vmxnet3',
      'e1000',
      'e1000e',
      'e1000',
    ]);
  });

  it('refuses NICs it cannot map, naming the NIC and its network', () => {
    const source = vm({
      nics: [
        nic(4000),
        nic(4001, { label: 'Network adapter 2', backing: { kind: 'dvportgroup', portgroupKey: 'dvportgroup-300' } }),
        nic(4002, { label: 'Network adapter 3', backing: { kind: 'network', networkName: 'VM Network' } }),
        nic(4003, { label: 'Network adapter 4', backing: { kind: 'dvportgroup', portgroupKey: 'dvportgroup-999' } }),
        nic(4004, {
          label: 'Network adapter 5',
          backing: { kind: 'opaque', opaqueNetworkId: 'ls-1', opaqueNetworkType: 'nsx.LogicalSwitch' },
        }),
        nic(4005, {
          label: 'Network adapter 6',
          backing: { kind: 'other', backingType: 'VirtualEthernetCardLegacyNetworkBackingInfo' },
        }),
        nic(4006, { label: 'Network adapter 7', backing: { kind: 'dvportgroup', portgroupKey: 'dvportgroup-400' } }),
      ],
    });
    const { nics, refusals } = mapNics(source, byKey, plan, 'virtio');
    expect(nics.map((n) => n.slot)).toEqual(['net0']);
    expect(refusals.map((r) => [r.code, r.subject])).toEqual([
      ['nic-no-vnet', 'Network adapter 2 (PG-TRUNK)'],
      ['nic-standard-network', 'Network adapter 3 (VM Network)'],
      ['nic-unknown-portgroup', 'Network adapter 4'],
      ['nic-opaque-network', 'Network adapter 5 (ls-1)'],
      ['nic-opaque-network', 'Network adapter 6'],
      ['nic-no-vnet', 'Network adapter 7 (PG-PVLAN)'],
    ]);
    expect(refusals[0]!.reason).toContain('Network adapter 2 is on portgroup PG-TRUNK: trunk portgroup carrying VLANs');
    expect(refusals[1]!.reason).toContain('Network adapter 3 is on standard-switch network VM Network');
    expect(refusals[5]!.reason).toBe('Network adapter 7 is on portgroup PG-PVLAN: no VNet is planned for it');
  });

  it('maps a standard network through an override', () => {
    const withOverride = planVnets(
      PORTGROUPS,
      { portgroupKeys: new Set(), standardNetworks: new Set(['VM Network']) },
      {
        zone: 'ferry',
        bridge: 'vmbr0',
        vnetPrefix: 'v',
        overrides: [{ network: 'VM Network', vnet: 'legacy', tag: 10 }],
      },
    );
    const source = vm({ nics: [nic(4000, { backing: { kind: 'network', networkName: 'VM Network' } })] });
    expect(mapNics(source, byKey, withOverride, 'virtio')).toMatchObject({
      nics: [{ bridge: 'legacy' }],
      refusals: [],
    });
  });
});
