import { parseConfig } from '../../src/config';
import { DEFAULT_CHANGE_POLICY } from '../../src/domain/change';
import { problemsOf } from '../helpers/config-problems';

describe('config: change (the day-2 policy)', () => {
  it('is the default policy when absent: report hand changes and conflicts, no MAC change, keep sources, detach removed disks', () => {
    expect(parseConfig({}, {}).change).toEqual(DEFAULT_CHANGE_POLICY);
  });

  it('takes a hand-drift choice per field kind, the conflict rule, MAC changes and what becomes of a moved disk’s source', () => {
    const config = parseConfig(
      {
        change: {
          handDrift: { default: 'netbox', fields: { 'nic.mac': 'report', memory: 'proxmox' } },
          conflict: 'netbox',
          allowMacChange: true,
          movedDiskSource: 'delete',
        },
      },
      {},
    );
    expect(config.change).toEqual({
      handDrift: { default: 'netbox', fields: { 'nic.mac': 'report', memory: 'proxmox' } },
      conflict: 'netbox',
      allowMacChange: true,
      movedDiskSource: 'delete',
      removedDisk: 'detach',
    });
  });

  it('says which key is wrong and what it takes', () => {
    const problems = problemsOf(() =>
      parseConfig(
        { change: { handDrift: { fields: { ram: 'netbox' } }, removedDisk: 'delete', allowMacChange: 'yes' } },
        {},
      ),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^change\.handDrift\.fields\.ram .*not a field kind; one of vcpus, memory, /),
        expect.stringMatching(
          /^change\.removedDisk .*detach \(a removed disk is kept as unusedN; deleting it needs an approval\)/,
        ),
        expect.stringMatching(/^change\.allowMacChange /),
      ]),
    );
  });
});
