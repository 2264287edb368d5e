import {
  describeMatch,
  folderMatches,
  globMatches,
  globToRegExp,
  tagMatches,
  vmMatches,
} from '../../../../src/domain/placement';

describe('globMatches', () => {
  it.each([
    ['db-*', 'db-01', true],
    ['db-*', 'db-', true],
    ['db-*', 'web-01', false],
    ['db-??', 'db-01', true],
    ['db-??', 'db-1', false],
    ['web01', 'web01', true],
    ['web01', 'web011', false],
    ['web01', 'xweb01', false],
    ['*.corp', 'a.corp', true],
    ['*.corp', 'axcorp', false],
    ['a+b(c)', 'a+b(c)', true],
    ['[x]', '[x]', true],
    ['[x]', 'x', false],
    ['DB-*', 'db-01', false],
    ['/DC0/*', '/DC0/vm', true],
    ['/DC0/*', '/DC0/vm/apps', false],
    ['/DC0/**', '/DC0/vm/apps', true],
    ['**', '', true],
    ['', '', true],
    ['', 'a', false],
  ])('%p vs %p → %p', (pattern, text, expected) => expect(globMatches(pattern, text)).toBe(expected));

  it('compiles to an anchored expression', () => expect(globToRegExp('a*').source).toBe('^a[^/]*$'));
});

describe('folderMatches', () => {
  it.each([
    ['/DC0/vm/apps', '/DC0/vm/apps', true],
    ['/DC0/vm/apps', '/DC0/vm/apps/web', true],
    ['/DC0/vm/apps/', '/DC0/vm/apps/web', true],
    ['/DC0/vm/apps', '/DC0/vm/apps2', false],
    ['/DC0/vm/apps', '/DC0/vm', false],
    ['/DC*/vm/db', '/DC1/vm/db/prod', true],
    ['/', '/DC0/vm', true],
    ['/DC0/vm/apps', undefined, false],
  ] as const)('%p vs %p → %p', (pattern, folder, expected) => expect(folderMatches(pattern, folder)).toBe(expected));
});

describe('tagMatches', () => {
  const tags = ['tier/gold', 'app/web'];
  it.each([
    ['tier/gold', true],
    ['gold', true],
    ['web', true],
    ['tier/web', false],
    ['silver', false],
    ['tier', false],
  ])('%p → %p', (wanted, expected) => expect(tagMatches(wanted, tags)).toBe(expected));

  it('matches a tag written without a category', () => expect(tagMatches('gold', ['gold'])).toBe(true));
  it('matches nothing on a VM without tags', () => expect(tagMatches('gold', [])).toBe(false));
});

describe('vmMatches', () => {
  const vm = { name: 'db-01', folder: '/DC0/vm/db', tags: ['tier/gold'] };
  it('needs every given field to match', () => {
    expect(vmMatches({ name: 'db-*', tag: 'gold' }, vm)).toBe(true);
    expect(vmMatches({ name: 'db-*', tag: 'silver' }, vm)).toBe(false);
    expect(vmMatches({ folder: '/DC0/vm/db', name: 'web*' }, vm)).toBe(false);
  });
  it('matches every VM with no field', () => expect(vmMatches({}, vm)).toBe(true));
  it('names a match', () => {
    expect(describeMatch({ folder: '/DC0/vm/db', tag: 'tier/gold', name: 'db-*' })).toBe(
      'folder /DC0/vm/db, tag tier/gold, name db-*',
    );
    expect(describeMatch({})).toBe('every VM');
  });
});
