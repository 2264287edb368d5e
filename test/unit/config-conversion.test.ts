import { migrationSettings } from '../../src/config/migration-settings';
import { parseConfig } from '../../src/config';
import { yieldAtMostMs } from '../../src/config/conversion';
import { problemsOf } from '../helpers/config-problems';
import { MIGRATION_BASE } from '../helpers/migration-config';

const settingsOf = (conversion: unknown, extra: Record<string, unknown> = {}) => {
  const config = parseConfig({ migration: { ...MIGRATION_BASE, conversion, ...extra } }, {});
  return migrationSettings(config.migration!, config.limits, 'vc');
};

describe('migration.conversion', () => {
  it('is off unless configured, and a run carries it with a convert limit of 2', () => {
    const settings = migrationSettings(
      parseConfig({ migration: MIGRATION_BASE }, {}).migration!,
      parseConfig({}, {}).limits,
      'vc',
    );
    expect(settings.rules.conversion).toEqual({ mode: 'off', overrides: [], accel: 'auto', timeoutMs: 3_600_000 });
    expect(settings.limits.convert).toBe(2);
  });

  it('takes a plain mode, or the whole section with overrides kept in the order written', () => {
    expect(settingsOf('linux').rules.conversion).toMatchObject({ mode: 'linux', overrides: [] });
    const full = settingsOf({
      mode: 'all',
      overrides: { 'db*': 'off', db01: 'linux' },
      virtioWin: '/srv/virtio-win.iso',
      agentPackages: '/srv/agents',
      accel: 'tcg',
      timeout: '30m',
    });
    expect(full.rules.conversion).toEqual({
      mode: 'all',
      overrides: [
        { vm: 'db*', mode: 'off' },
        { vm: 'db01', mode: 'linux' },
      ],
      virtioWin: '/srv/virtio-win.iso',
      agentPackages: '/srv/agents',
      accel: 'tcg',
      timeoutMs: 1_800_000,
    });
  });

  it('says what is wrong with each key, and where the convert workers mount a datastore', () => {
    const problems = problemsOf(() =>
      parseConfig(
        {
          migration: {
            ...MIGRATION_BASE,
            conversion: {
              mode: 'windows',
              virtioWin: 'virtio-win.iso',
              agentPackages: 'agents',
              accel: 'fast',
              extra: 1,
            },
          },
        },
        {},
      ),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^migration\.conversion\.mode .*'off', 'linux' \(Linux guests\) or 'all'/),
        expect.stringMatching(/^migration\.conversion\.virtioWin .*an absolute path on the convert workers/),
        expect.stringMatching(/^migration\.conversion\.agentPackages .*an absolute path on the convert workers/),
        expect.stringMatching(/^migration\.conversion\.accel /),
        expect.stringMatching(/^migration\.conversion .*extra/),
      ]),
    );
    const datastores = [
      {
        datastore: 'nfs-migration',
        storage: 'nfs-migration',
        path: '/mnt/pve/nfs-migration',
        convertPath: '/srv/nfs-migration',
      },
    ];
    expect(settingsOf('linux', { datastores }).datastores[0]).toMatchObject({ convertPath: '/srv/nfs-migration' });
    expect(
      problemsOf(() =>
        parseConfig(
          { migration: { ...MIGRATION_BASE, datastores: [{ ...datastores[0], convertPath: 'relative' }] } },
          {},
        ),
      ),
    ).toEqual(expect.arrayContaining([expect.stringMatching(/convertPath .*an absolute path on the convert workers/)]));
  });

  it('yields to cutovers by default for at most 30 s a pause; false turns it off; atMost sets the cap', () => {
    const yieldOf = (conversion: unknown) =>
      yieldAtMostMs(parseConfig({ migration: { ...MIGRATION_BASE, conversion } }, {}).migration!.conversion);
    expect(yieldOf(undefined)).toBe(30_000);
    expect(yieldOf('linux')).toBe(30_000);
    expect(yieldOf({ mode: 'linux', yieldToCutovers: true })).toBe(30_000);
    expect(yieldOf({ mode: 'linux', yieldToCutovers: { atMost: '2m' } })).toBe(120_000);
    expect(yieldOf({ mode: 'linux', yieldToCutovers: {} })).toBe(30_000);
    expect(yieldOf({ mode: 'linux', yieldToCutovers: false })).toBeUndefined();
    expect(yieldOf({ mode: 'linux', yieldToCutovers: { atMost: 0 } })).toBeUndefined();
    const problems = (yieldToCutovers: unknown) =>
      problemsOf(() => parseConfig({ migration: { ...MIGRATION_BASE, conversion: { yieldToCutovers } } }, {}));
    expect(problems('sometimes')).toEqual([
      expect.stringMatching(/^migration\.conversion\.yieldToCutovers .*true, false or \{ atMost: <duration> \}/),
    ]);
    expect(problems({ atMost: 'soon' })).toEqual([
      expect.stringMatching(/^migration\.conversion\.yieldToCutovers.*(a duration such as|true, false)/),
    ]);
    expect(problems({ atMost: '10s', linger: '1s' })).toEqual([expect.stringMatching(/yieldToCutovers/)]);
  });
});
