import { parseConfig } from '../../src/config';
import { DEFAULT_CHANGE_POLICY } from '../../src/domain/change';
import { problemsOf } from '../helpers/config-problems';

describe('config: change (the day-2 policy)', () => {
  it('is the default policy when absent: report hand changes and conflicts, no MAC change, keep sources, detach removed disks', () => {
    expect(parseConfig({}, {}).change).toEqual({
      ...DEFAULT_CHANGE_POLICY,
      debounce: '10s',
      restart: { shutdownTimeout: '3m', forceStop: true },
    });
  });

  it('takes how long a burst of edits is waited out, the window and how a guest is restarted', () => {
    const { change } = parseConfig(
      { change: { debounce: '30s', restart: { shutdownTimeout: '10m', forceStop: false } } },
      {},
    );
    expect(change.debounce).toBe('30s');
    expect(change.restart).toEqual({ shutdownTimeout: '10m', forceStop: false });
    expect(() => parseConfig({ change: { debounce: 'soon' } }, {})).toThrow(/change\.debounce/);
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
      debounce: '10s',
      restart: { shutdownTimeout: '3m', forceStop: true },
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
