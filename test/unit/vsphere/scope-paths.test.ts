import { ScopeError, scopePaths } from '../../../src/vsphere/scope-paths';

describe('a discovery scope as inventory paths', () => {
  it('takes a folder as the inventory path every command takes, or relative to the datacenter', () => {
    const expected = { datacenter: '/DC0', folders: ['/DC0/vm/db'], clusters: [] };
    expect(scopePaths({ datacenter: 'DC0', folders: ['/DC0/vm/db'] })).toEqual(expected);
    expect(scopePaths({ datacenter: '/DC0/', folders: ['db'] })).toEqual(expected);
    expect(scopePaths({ datacenter: 'DC0', folders: ['db/'] })).toEqual(expected);
    expect(scopePaths({ datacenter: 'DC0', folders: ['/DC0/vm/db/'] })).toEqual(expected);
    // Without a datacenter, it is the one the path is in (nested in folders too).
    expect(scopePaths({ folders: ['/DC0/vm/db'] })).toEqual(expected);
    expect(scopePaths({ folders: ['/Europe/DC-AMS/vm/apps/web/'], clusters: ['/Europe/DC-AMS/host/C1'] })).toEqual({
      datacenter: '/Europe/DC-AMS',
      folders: ['/Europe/DC-AMS/vm/apps/web'],
      clusters: ['/Europe/DC-AMS/host/C1'],
    });
    expect(scopePaths({ clusters: ['/DC0/host/DC0_C0'] })).toEqual({
      datacenter: '/DC0',
      folders: [],
      clusters: ['/DC0/host/DC0_C0'],
    });
    expect(scopePaths({ folders: ['/DC0/vm'] })).toEqual({ datacenter: '/DC0', folders: ['/DC0/vm'], clusters: [] });
  });

  it('is the whole vCenter without a datacenter, folder or cluster', () => {
    expect(scopePaths({})).toBeUndefined();
    expect(scopePaths({ datacenter: 'DC0' })).toEqual({ datacenter: '/DC0', folders: [], clusters: [] });
  });

  it('refuses what it cannot place, saying what to give instead', () => {
    const problem = (scope: Parameters<typeof scopePaths>[0]) => {
      try {
        scopePaths(scope);
      } catch (err) {
        expect(err).toBeInstanceOf(ScopeError);
        return (err as Error).message;
      }
      return undefined;
    };
    expect(problem({ folders: ['apps'] })).toBe(
      'a folder or cluster scope needs the datacenter it is in (--datacenter), or give it as an inventory path: folder apps is relative (e.g. /DC0/vm/apps)',
    );
    expect(problem({ datacenter: 'DC0', folders: ['/DC1/vm/db'] })).toBe(
      'folder /DC1/vm/db is not in datacenter /DC0: its VM folders are under /DC0/vm/',
    );
    expect(problem({ folders: ['/DC0/vm/db', '/DC1/vm/apps'] })).toBe(
      'folder /DC1/vm/apps is not in datacenter /DC0: its VM folders are under /DC0/vm/',
    );
    expect(problem({ folders: ['/DC0/db'] })).toBe(
      'folder /DC0/db is not an inventory path inside a datacenter: expected /<datacenter>/vm/…',
    );
    expect(problem({ clusters: ['/DC0/vm/apps'] })).toBe(
      'cluster /DC0/vm/apps is not an inventory path inside a datacenter: expected /<datacenter>/host/…',
    );
  });
});
