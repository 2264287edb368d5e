import { ambiguousNameMessage, selectVms } from '../../../../src/domain/migration';
import { vm } from './fixtures';

const VMS = [
  vm({ moid: 'vm-1', name: 'web01', folder: '/DC0/vm/apps', cluster: { moid: 'domain-c1', name: 'C1' } }),
  vm({ moid: 'vm-2', name: 'web02', folder: '/DC0/vm/apps/web', cluster: { moid: 'domain-c2', name: 'C2' } }),
  vm({ moid: 'vm-3', name: 'db01', folder: '/DC0/vm/apps-old' }),
];
const names = (selection: Parameters<typeof selectVms>[1], tagged?: Set<string>) =>
  selectVms(VMS, selection, tagged).vms.map((v) => v.name);

describe('selectVms', () => {
  it('takes every VM when nothing is asked', () => {
    expect(names({})).toEqual(['web01', 'web02', 'db01']);
  });

  it('takes a folder and the folders below it, not a folder that only starts with its name', () => {
    expect(names({ folder: '/DC0/vm/apps' })).toEqual(['web01', 'web02']);
  });

  it('takes by cluster, by tag (the tagged moids) and by name, every criterion together', () => {
    expect(names({ cluster: 'C2' })).toEqual(['web02']);
    expect(names({ tag: 'wave1' }, new Set(['vm-1', 'vm-3']))).toEqual(['web01', 'db01']);
    expect(names({ names: ['web01', 'db01'], folder: '/DC0/vm/apps' })).toEqual(['web01']);
  });

  it('names the asked-for VMs it did not find', () => {
    expect(selectVms(VMS, { names: ['web01', 'nope'] }).missingNames).toEqual(['nope']);
    expect(selectVms(VMS, { names: ['db01'], folder: '/DC0/vm/apps' }).missingNames).toEqual(['db01']);
  });

  it('takes a folder given with a trailing slash as the same folder', () => {
    expect(names({ folder: '/DC0/vm/apps/' })).toEqual(['web01', 'web02']);
  });

  it('takes a VM by its moid or its inventory path as well as by its name', () => {
    expect(names({ names: ['vm-2'] })).toEqual(['web02']);
    expect(names({ names: ['/DC0/vm/apps-old/db01'] })).toEqual(['db01']);
    expect(selectVms(VMS, { names: ['/DC0/vm/apps/db01'] }).missingNames).toEqual(['/DC0/vm/apps/db01']);
  });

  it('refuses to guess a name two VMs share: each candidate with its folder and moid, and how to pick one', () => {
    const twins = [...VMS, vm({ moid: 'vm-7', name: 'web01', folder: '/DC0/vm/db' })];
    const picked = selectVms(twins, { names: ['web01', 'db01'] });
    expect(picked.ambiguousNames).toEqual([
      {
        name: 'web01',
        candidates: [
          { name: 'web01', moid: 'vm-1', folder: '/DC0/vm/apps' },
          { name: 'web01', moid: 'vm-7', folder: '/DC0/vm/db' },
        ],
      },
    ]);
    expect(ambiguousNameMessage(picked.ambiguousNames[0]!)).toBe(
      '"web01" names 2 VMs: vm-1 in /DC0/vm/apps, vm-7 in /DC0/vm/db; name the one to migrate by moid (vm-1) or by inventory path (/DC0/vm/apps/web01)',
    );
    expect(selectVms(twins, { names: ['vm-7'] }).vms.map((v) => v.moid)).toEqual(['vm-7']);
    expect(selectVms(twins, { names: ['/DC0/vm/db/web01'] }).ambiguousNames).toEqual([]);
  });
});
