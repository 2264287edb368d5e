import {
  groupsMigrated,
  haPlan,
  haSid,
  withResource,
  type HaCluster,
  type HaSettings,
} from '../../../../src/domain/migration/ha';

const pve8: HaCluster = { version: '8.4.2', major: 8, groups: ['prod', 'test'] };
const pve9: HaCluster = { version: '9.1.3', major: 9, groups: [], rules: ['ha-group-prod', 'spread'] };
const pve9Upgrading: HaCluster = { version: '9.1.3', major: 9, groups: ['prod'], rules: [] };
const settings = (s: Partial<HaSettings>): HaSettings => ({ state: 'started', ...s });

describe('migration.ha: how the VM registers on each PVE version', () => {
  it('names the resource vm:<vmid>', () => {
    expect(haSid(20042)).toBe('vm:20042');
  });

  it('without group or rule: the resource alone, on either version', () => {
    expect(haPlan(20042, settings({}), pve8)).toEqual({ sid: 'vm:20042' });
    expect(haPlan(20042, settings({}), pve9)).toEqual({ sid: 'vm:20042' });
  });

  it('PVE 8: a group that exists; an unknown one refused with the groups there are (PVE 8 itself would take it silently)', () => {
    expect(haPlan(20042, settings({ group: 'prod' }), pve8)).toEqual({ sid: 'vm:20042', group: 'prod' });
    expect(haPlan(20042, settings({ group: 'gold' }), pve8)).toEqual({
      refusal: "migration.ha.group 'gold': no such HA group on the cluster (groups: prod, test)",
    });
    expect(haPlan(20042, settings({ group: 'gold' }), { ...pve8, groups: [] })).toEqual({
      refusal: "migration.ha.group 'gold': no such HA group on the cluster (groups: none)",
    });
  });

  it('PVE 9 after the groups became rules: a group refused pointing at rules; a rule that exists taken; an unknown rule refused', () => {
    const refused = haPlan(20042, settings({ group: 'prod' }), pve9);
    expect(refused).toEqual({
      refusal: expect.stringContaining("migration.ha.group 'prod': Proxmox VE 9.1.3 has no HA groups any more"),
    });
    expect((refused as { refusal: string }).refusal).toContain(
      "became the rule 'ha-group-g'): set migration.ha.rule instead (rules: ha-group-prod, spread)",
    );
    expect(haPlan(20042, settings({ rule: 'ha-group-prod' }), pve9)).toEqual({
      sid: 'vm:20042',
      rule: 'ha-group-prod',
    });
    expect(haPlan(20042, settings({ rule: 'gold' }), pve9)).toEqual({
      refusal: "migration.ha.rule 'gold': no such HA rule on the cluster (rules: ha-group-prod, spread)",
    });
  });

  it('PVE 9 with groups left (mid-upgrade): groups work as on 8, rules are refused as PVE refuses them', () => {
    expect(groupsMigrated(pve9Upgrading)).toBe(false);
    expect(haPlan(20042, settings({ group: 'prod' }), pve9Upgrading)).toEqual({ sid: 'vm:20042', group: 'prod' });
    expect(haPlan(20042, settings({ rule: 'x1' }), pve9Upgrading)).toEqual({
      refusal: expect.stringContaining('the cluster still has HA groups (prod)'),
    });
  });

  it('PVE 8: a rule refused (rules came with PVE 9); groups are never "migrated" on 8', () => {
    expect(groupsMigrated({ ...pve8, groups: [] })).toBe(false);
    expect(haPlan(20042, settings({ rule: 'x1' }), pve8)).toEqual({
      refusal:
        "migration.ha.rule 'x1': Proxmox VE 8.4.2 has no HA rules (they came with PVE 9): set migration.ha.group instead",
    });
  });

  it('adds the resource to a rule once, keeping the others in their order', () => {
    expect(withResource('vm:101,vm:102', 'vm:20042')).toBe('vm:101,vm:102,vm:20042');
    expect(withResource('vm:101,vm:20042', 'vm:20042')).toBe('vm:101,vm:20042');
    expect(withResource('', 'vm:20042')).toBe('vm:20042');
  });
});
