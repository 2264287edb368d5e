import {
  classifyPortgroup,
  planVnets,
  sdnIdProblem,
  VnetPlanError,
  type VnetPlanOptions,
} from '../../../../src/domain/migration';
import { portgroup, PORTGROUPS } from './fixtures';

const OPTIONS: VnetPlanOptions = { zone: 'ferry', bridge: 'vmbr0', vnetPrefix: 'v', overrides: [] };
const used = (keys: string[], standard: string[] = []) => ({
  portgroupKeys: new Set(keys),
  standardNetworks: new Set(standard),
});

describe('classifyPortgroup', () => {
  it('classifies every VLAN shape', () => {
    expect(PORTGROUPS.map(classifyPortgroup)).toEqual([
      { kind: 'access', tag: 100 },
      { kind: 'access', tag: 100 },
      { kind: 'access', tag: 200 },
      {
        kind: 'trunk',
        ranges: [
          { start: 100, end: 200 },
          { start: 300, end: 300 },
        ],
      },
      { kind: 'pvlan', pvlanId: 501 },
      { kind: 'untagged' },
      { kind: 'uplink' },
    ]);
    expect(classifyPortgroup(portgroup('k', 'n', { kind: 'none' }))).toEqual({ kind: 'untagged' });
  });
});

describe('sdnIdProblem', () => {
  it.each(['v100', 'ab', 'Vlan4094', 'a1b2c3d4'])('accepts %p', (id) => expect(sdnIdProblem(id)).toBeUndefined());
  it.each([
    ['a', 'must be 2 to 8 characters long'],
    ['vlan40941', 'must be 2 to 8 characters long'],
    ['1abc', 'must start with a letter'],
    ['v-100', 'only letters and digits'],
    ['v_1', 'only letters and digits'],
  ])('refuses %p', (id, message) => expect(sdnIdProblem(id)).toContain(message));
});

describe('planVnets', () => {
  it('plans one VNet per access VLAN in use, collapsing portgroups on one VLAN', () => {
    const plan = planVnets(PORTGROUPS, used(['dvportgroup-100', 'dvportgroup-101', 'dvportgroup-200']), OPTIONS);
    expect(plan.zone).toEqual({ id: 'ferry', bridge: 'vmbr0' });
    expect(plan.vnets).toEqual([
      {
        id: 'v100',
        tag: 100,
        alias: 'PG-VLAN100, PG-VLAN100-b',
        sources: ['PG-VLAN100', 'PG-VLAN100-b'],
        create: true,
      },
      { id: 'v200', tag: 200, alias: 'PG-VLAN200', sources: ['PG-VLAN200'], create: true },
    ]);
    expect(plan.byPortgroupKey).toEqual({
      'dvportgroup-100': 'v100',
      'dvportgroup-101': 'v100',
      'dvportgroup-200': 'v200',
    });
    expect(plan.untranslated).toEqual([]);
  });

  it('plans nothing for portgroups no selected VM uses', () => {
    const plan = planVnets(PORTGROUPS, used(['dvportgroup-200']), OPTIONS);
    expect(plan.vnets.map((v) => v.id)).toEqual(['v200']);
  });

  it('lists trunks, PVLANs, untagged, uplink and standard networks as untranslated, with the reason', () => {
    const plan = planVnets(
      PORTGROUPS,
      used(['dvportgroup-300', 'dvportgroup-400', 'dvportgroup-500', 'dvportgroup-600'], ['VM Network']),
      OPTIONS,
    );
    expect(plan.vnets).toEqual([]);
    expect(plan.untranslated).toEqual([
      { network: 'DSwitch-uplinks', reason: expect.stringContaining('uplink portgroup') },
      { network: 'PG-PVLAN', reason: expect.stringContaining('private VLAN 501 has no Proxmox SDN equivalent') },
      { network: 'PG-TRUNK', reason: expect.stringContaining('trunk portgroup carrying VLANs 100-200,300') },
      { network: 'PG-UNTAGGED', reason: expect.stringContaining('untagged portgroup') },
      { network: 'VM Network', reason: expect.stringContaining('standard-switch network') },
    ]);
  });

  it('maps overridden networks: with a tag ferry creates the VNet, without it must exist', () => {
    const plan = planVnets(
      PORTGROUPS,
      used(['dvportgroup-300', 'dvportgroup-400', 'dvportgroup-100'], ['VM Network']),
      {
        ...OPTIONS,
        overrides: [
          { network: 'PG-TRUNK', vnet: 'trunk1' },
          { network: 'PG-PVLAN', vnet: 'iso501', tag: 501 },
          { network: 'VM Network', vnet: 'legacy', tag: 10 },
          { network: 'not-used', vnet: 'unused' },
        ],
      },
    );
    expect(plan.vnets).toEqual([
      { id: 'iso501', tag: 501, alias: 'PG-PVLAN', sources: ['PG-PVLAN'], create: true },
      { id: 'legacy', tag: 10, alias: 'VM Network', sources: ['VM Network'], create: true },
      { id: 'trunk1', tag: undefined, alias: 'PG-TRUNK', sources: ['PG-TRUNK'], create: false },
      { id: 'v100', tag: 100, alias: 'PG-VLAN100', sources: ['PG-VLAN100'], create: true },
    ]);
    expect(plan.byPortgroupKey).toEqual({
      'dvportgroup-300': 'trunk1',
      'dvportgroup-400': 'iso501',
      'dvportgroup-100': 'v100',
    });
    expect(plan.byNetworkName).toEqual({ 'VM Network': 'legacy' });
    expect(plan.untranslated).toEqual([]);
  });

  it('refuses settings that PVE would refuse, listing every problem', () => {
    const attempt = () =>
      planVnets(PORTGROUPS, used(['dvportgroup-100', 'dvportgroup-300', 'dvportgroup-400']), {
        zone: 'x',
        bridge: 'vmbr0',
        vnetPrefix: 'v',
        overrides: [
          { network: 'PG-TRUNK', vnet: 'other100', tag: 100 },
          { network: 'PG-PVLAN', vnet: 'bad-id', tag: 5000 },
        ],
      });
    expect(attempt).toThrow(VnetPlanError);
    try {
      attempt();
    } catch (err) {
      expect((err as VnetPlanError).problems).toEqual([
        'zone id "x" must be 2 to 8 characters long',
        'override for "PG-PVLAN": VNet id "bad-id" must start with a letter and contain only letters and digits',
        'override for "PG-PVLAN": tag 5000 is not a VLAN id 1–4094',
        'VNets other100 and v100 would both carry VLAN 100 in zone x',
      ]);
    }
  });

  it('refuses a prefix that makes VNet ids too long', () => {
    expect(() => planVnets(PORTGROUPS, used(['dvportgroup-100']), { ...OPTIONS, vnetPrefix: 'vlanid' })).toThrow(
      'VNet id for VLAN 100 with prefix "vlanid": "vlanid100" must be 2 to 8 characters long',
    );
  });

  it('lets an override name the automatic VNet of the same tag (merging, not clashing)', () => {
    const plan = planVnets(PORTGROUPS, used(['dvportgroup-100', 'dvportgroup-500']), {
      ...OPTIONS,
      overrides: [{ network: 'PG-UNTAGGED', vnet: 'v100', tag: 100 }],
    });
    expect(plan.vnets).toEqual([
      { id: 'v100', tag: 100, alias: 'PG-UNTAGGED, PG-VLAN100', sources: ['PG-UNTAGGED', 'PG-VLAN100'], create: true },
    ]);
  });
});
