import { parseConfig } from '../../src/config';
import { migrationSettings } from '../../src/config/migration-settings';
import { problemsOf } from '../helpers/config-problems';
import { MIGRATION_BASE } from '../helpers/migration-config';

const base = MIGRATION_BASE;

const settingsOf = (migration: Record<string, unknown>) => {
  const config = parseConfig({ migration }, {});
  return migrationSettings(config.migration!, config.limits, 'vc');
};

describe('config: placement keys', () => {
  it('leaves placement off unless nodes, storageMap or placement is set', () => {
    expect(settingsOf(base).placement).toBeUndefined();
    expect(settingsOf({ ...base, nodes: ['pve1', 'pve2'] }).placement).toEqual({
      nodes: ['pve1', 'pve2'],
      rules: [],
      maxMemoryCommit: 1.0,
      antiAffinity: [],
      storageMap: [],
      targetStorage: 'local-lvm',
      migrationHeadroom: 0.1,
      partial: false,
    });
    // placement alone: the nodes default to migration.node.
    expect(settingsOf({ ...base, placement: { partial: true } }).placement).toMatchObject({
      nodes: ['pve1'],
      partial: true,
    });
  });

  it('turns rules, groups and the storage map into the domain settings', () => {
    const placement = settingsOf({
      ...base,
      nodes: ['pve1', 'pve2', 'pve3'],
      storageMap: [
        { datastore: 'ssd-*', storage: 'local-lvm' },
        { label: 'Hard disk 2', storage: 'nfs-images' },
      ],
      placement: {
        rules: [
          { folder: '/DC0/vm/db', nodes: ['pve2', 'pve3'] },
          { name: 'dmz-*', node: 'pve1' },
        ],
        maxMemoryCommit: 1.5,
        antiAffinity: [{ tag: 'role/db' }],
        migrationHeadroom: 0.2,
      },
    }).placement!;
    expect(placement.rules).toEqual([
      { match: { folder: '/DC0/vm/db' }, nodes: ['pve2', 'pve3'] },
      { match: { name: 'dmz-*' }, nodes: ['pve1'] },
    ]);
    expect(placement).toMatchObject({
      maxMemoryCommit: 1.5,
      migrationHeadroom: 0.2,
      antiAffinity: [{ tag: 'role/db' }],
    });
    expect(placement.storageMap).toEqual([
      { datastore: 'ssd-*', storage: 'local-lvm' },
      { label: 'Hard disk 2', storage: 'nfs-images' },
    ]);
  });

  it('refuses bad placement keys with what and where', () => {
    const problems = problemsOf(() =>
      parseConfig(
        {
          migration: {
            ...base,
            nodes: [],
            storageMap: [{ storage: 'local-lvm' }],
            placement: {
              rules: [{ name: 'db-*' }, { name: 'x', node: 'pve1', nodes: ['pve2'] }],
              maxMemoryCommit: 0,
              antiAffinity: [{}],
              migrationHeadroom: 2,
              spread: true,
            },
          },
        },
        {},
      ),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^migration\.nodes \(ferry\.yaml\): at least one node/),
        expect.stringMatching(
          /^migration\.storageMap\.0 \(ferry\.yaml\): a storageMap entry needs a datastore or a disk label/,
        ),
        expect.stringMatching(/^migration\.placement\.rules\.0 \(ferry\.yaml\): give node \(one node\) or nodes/),
        expect.stringMatching(/^migration\.placement\.rules\.1 \(ferry\.yaml\): give node \(one node\) or nodes/),
        expect.stringMatching(/^migration\.placement\.maxMemoryCommit \(ferry\.yaml\): a ratio above 0/),
        expect.stringMatching(
          /^migration\.placement\.antiAffinity\.0 \(ferry\.yaml\): an anti-affinity group needs a tag or a name pattern/,
        ),
        expect.stringMatching(/^migration\.placement\.migrationHeadroom \(ferry\.yaml\): a fraction 0–1/),
        expect.stringMatching(/^migration\.placement \(ferry\.yaml\): unknown key\(s\) "spread"/),
      ]),
    );
  });
});
