import { parseConfig } from '../../src/config';
import { migrationSettings } from '../../src/config/migration-settings';
import { problemsOf } from '../helpers/config-problems';
import { MIGRATION_BASE } from '../helpers/migration-config';

const BASE = MIGRATION_BASE;

describe('config: migration.isoMap and migration.tpm', () => {
  it('defaults to no ISO carried over and vTPM VMs refused, and passes both into the rules', () => {
    const config = parseConfig({ migration: BASE }, {});
    expect(config.migration).toMatchObject({ isoMap: {}, tpm: 'refuse' });
    expect(migrationSettings(config.migration!, config.limits, 'vc').rules).toMatchObject({
      isoMap: {},
      tpm: 'refuse',
      efiStorage: 'local-lvm',
    });
  });

  it('takes VMware ISO paths mapped to Proxmox ISO volumes, and tpm: new', () => {
    const isoMap = {
      '[iso-ds] win/server2022.iso': 'local:iso/server2022.iso',
      '[iso-ds]tools.img': 'nfs-iso:iso/tools.IMG',
    };
    const config = parseConfig({ migration: { ...BASE, isoMap, tpm: 'new' } }, {});
    expect(migrationSettings(config.migration!, config.limits, 'vc').rules).toMatchObject({ isoMap, tpm: 'new' });
  });

  it('says what an ISO path, an ISO volume or a TPM policy must look like', () => {
    const problems = problemsOf(() =>
      parseConfig(
        {
          migration: {
            ...BASE,
            isoMap: { 'win/server2022.iso': 'local:iso/server2022.iso', '[ds] a.iso': 'local:images/a.raw' },
            tpm: 'keep',
          },
        },
        {},
      ),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^migration\.isoMap.*a VMware datastore path: \[datastore\] path\/file\.iso/),
        expect.stringMatching(/^migration\.isoMap.*a Proxmox ISO volume: storage:iso\/file\.iso/),
        expect.stringMatching(/^migration\.tpm \(ferry\.yaml\):/),
      ]),
    );
  });
});
