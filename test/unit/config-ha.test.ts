import { parseConfig } from '../../src/config';
import { migrationSettings } from '../../src/config/migration-settings';
import { problemsOf } from '../helpers/config-problems';
import { MIGRATION_BASE } from '../helpers/migration-config';

describe('config: migration.ha', () => {
  it('is off unless given: the settings then carry no ha', () => {
    const config = parseConfig({ migration: MIGRATION_BASE }, {});
    expect(migrationSettings(config.migration!, config.limits, 'vc')).not.toHaveProperty('ha');
  });

  it('takes a group (PVE 8) or a rule (PVE 9), the state (default started) and the restart/relocate limits', () => {
    const withGroup = parseConfig({ migration: { ...MIGRATION_BASE, ha: { group: 'prod', maxRestart: 2 } } }, {});
    expect(migrationSettings(withGroup.migration!, withGroup.limits, 'vc').ha).toEqual({
      group: 'prod',
      state: 'started',
      maxRestart: 2,
    });
    const withRule = parseConfig(
      { migration: { ...MIGRATION_BASE, ha: { rule: 'ha-group-prod', state: 'stopped', maxRelocate: 0 } } },
      {},
    );
    expect(migrationSettings(withRule.migration!, withRule.limits, 'vc').ha).toEqual({
      rule: 'ha-group-prod',
      state: 'stopped',
      maxRelocate: 0,
    });
    const bare = parseConfig({ migration: { ...MIGRATION_BASE, ha: {} } }, {});
    expect(migrationSettings(bare.migration!, bare.limits, 'vc').ha).toEqual({ state: 'started' });
  });

  it('refuses both a group and a rule, a bad id, an unknown state or key, naming the key', () => {
    const problems = (ha: unknown) => problemsOf(() => parseConfig({ migration: { ...MIGRATION_BASE, ha } }, {}));
    expect(problems({ group: 'a1', rule: 'b1' })).toEqual([
      expect.stringMatching(/^migration\.ha.*give group \(PVE 8\) or rule \(PVE 9\), not both/),
    ]);
    expect(problems({ group: '1prod' })).toEqual([
      expect.stringMatching(/^migration\.ha\.group.*a PVE configuration id/),
    ]);
    expect(problems({ state: 'running' })).toEqual([expect.stringMatching(/^migration\.ha\.state/)]);
    expect(problems({ nodes: 'pve1' })).toEqual([expect.stringMatching(/^migration\.ha.*nodes/)]);
  });
});
