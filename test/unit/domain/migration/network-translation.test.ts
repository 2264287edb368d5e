import {
  nicAttachment,
  planVnets,
  portgroupTranslation,
  standardNetworkTranslation,
} from '../../../../src/domain/migration';
import { nic, portgroup, PORTGROUPS } from './fixtures';

describe('portgroupTranslation', () => {
  const [access, , , trunk, pvlan, untagged, uplink] = PORTGROUPS;

  it('an access portgroup becomes the VNet of its VLAN, created by ferry', () => {
    expect(portgroupTranslation(access!, undefined, 'v')).toEqual({ kind: 'vnet', id: 'v100', tag: 100, create: true });
  });

  it('an override wins over the VLAN; ferry creates its VNet only when it gives a tag', () => {
    expect(portgroupTranslation(access!, { network: 'PG-VLAN100', vnet: 'legacy' }, 'v')).toEqual({
      kind: 'vnet',
      id: 'legacy',
      tag: undefined,
      create: false,
    });
    expect(portgroupTranslation(trunk!, { network: 'PG-TRUNK', vnet: 'trunk1', tag: 42 }, 'v')).toEqual({
      kind: 'vnet',
      id: 'trunk1',
      tag: 42,
      create: true,
    });
  });

  it('a VNet id the prefix makes invalid is a settings problem, naming the VLAN and the prefix', () => {
    expect(portgroupTranslation(access!, undefined, 'network')).toEqual({
      kind: 'invalid',
      problem: 'VNet id for VLAN 100 with prefix "network": "network100" must be 2 to 8 characters long',
    });
  });

  it('trunk, private VLAN, untagged and uplink portgroups have no VNet, each with its reason', () => {
    const reasons = [trunk, pvlan, untagged, uplink].map((pg) => {
      const translation = portgroupTranslation(pg!, undefined, 'v');
      return translation.kind === 'untranslated' ? translation.reason : translation.kind;
    });
    expect(reasons).toEqual([
      'trunk portgroup carrying VLANs 100-200,300; a VLAN-zone VNet carries one tag: map it with an override to a VLAN-aware VNet',
      'private VLAN 501 has no Proxmox SDN equivalent: map it with an override',
      'untagged portgroup: map it with an override to a VNet',
      'uplink portgroup of the distributed switch; VM NICs do not belong on it',
    ]);
    expect(portgroupTranslation(portgroup('k', 'n', { kind: 'none' }), undefined, 'v').kind).toBe('untranslated');
  });
});

describe('standardNetworkTranslation', () => {
  it('only an override translates a standard-switch network', () => {
    expect(standardNetworkTranslation({ network: 'VM Network', vnet: 'lab', tag: 10 })).toEqual({
      kind: 'vnet',
      id: 'lab',
      tag: 10,
      create: true,
    });
    expect(standardNetworkTranslation(undefined)).toMatchObject({ kind: 'untranslated' });
  });
});

describe('nicAttachment', () => {
  const byKey = new Map(PORTGROUPS.map((pg) => [pg.key, pg]));
  const plan = planVnets(
    PORTGROUPS,
    { portgroupKeys: new Set(['dvportgroup-100', 'dvportgroup-300']), standardNetworks: new Set(['Lab']) },
    { zone: 'ferry', bridge: 'vmbr0', vnetPrefix: 'v', overrides: [{ network: 'Lab', vnet: 'lab' }] },
  );

  it('a portgroup or standard network with a VNet: the VNet and the network’s name', () => {
    expect(nicAttachment(nic(4000), byKey, plan)).toEqual({ bridge: 'v100', network: 'PG-VLAN100' });
    expect(nicAttachment(nic(4000, { backing: { kind: 'network', networkName: 'Lab' } }), byKey, plan)).toEqual({
      bridge: 'lab',
      network: 'Lab',
    });
  });

  it('a portgroup without a VNet: refused with the reason planVnets gave, else that none is planned', () => {
    const trunk = nicAttachment(
      nic(4000, { backing: { kind: 'dvportgroup', portgroupKey: 'dvportgroup-300' } }),
      byKey,
      plan,
    );
    expect(trunk).toEqual({
      refusal: expect.objectContaining({
        code: 'nic-no-vnet',
        subject: 'Network adapter 1 (PG-TRUNK)',
        reason: expect.stringContaining('Network adapter 1 is on portgroup PG-TRUNK: trunk portgroup carrying VLANs'),
      }),
    });
    const unused = nicAttachment(
      nic(4000, { backing: { kind: 'dvportgroup', portgroupKey: 'dvportgroup-200' } }),
      byKey,
      plan,
    );
    expect(unused).toEqual({
      refusal: expect.objectContaining({
        reason: 'Network adapter 1 is on portgroup PG-VLAN200: no VNet is planned for it',
      }),
    });
  });

  it('a portgroup discovery did not find, an opaque network, another backing: refused', () => {
    const codes = [
      { kind: 'dvportgroup' as const, portgroupKey: 'dvportgroup-999' },
      { kind: 'network' as const, networkName: 'VM Network' },
      { kind: 'opaque' as const, opaqueNetworkId: 'ls-1', opaqueNetworkType: 'nsx.LogicalSwitch' },
      { kind: 'other' as const, backingType: 'VirtualEthernetCardSriovBackingInfo' },
    ].map((backing) => {
      const attachment = nicAttachment(nic(4000, { backing }), byKey, plan);
      return 'refusal' in attachment ? attachment.refusal.code : attachment.bridge;
    });
    expect(codes).toEqual([
      'nic-unknown-portgroup',
      'nic-standard-network',
      'nic-opaque-network',
      'nic-opaque-network',
    ]);
  });
});
