import { choiceReasons, distinct, ordinal, waveRefusedRefusal } from '../../../../src/domain/placement/explain';
import type { PlacementRefusal } from '../../../../src/domain/placement';
import { GiB } from './fixtures';

describe('ordinal', () => {
  it.each([
    [1, '1st'],
    [2, '2nd'],
    [3, '3rd'],
    [4, '4th'],
    [11, '11th'],
    [12, '12th'],
    [13, '13th'],
    [21, '21st'],
    [102, '102nd'],
    [111, '111th'],
  ])('%i is the %s', (n, text) => {
    expect(ordinal(n)).toBe(text);
  });
});

describe('choiceReasons', () => {
  const memory: PlacementRefusal = {
    code: 'placement-memory',
    subject: 'a',
    reason: 'memory on pve1: needs 8 GiB, 2 GiB free',
  };
  const base = {
    allowed: 'any online node (pve1, pve2, pve3)',
    chosen: 'pve2',
    groups: [],
    committedAfterBytes: 10.5 * GiB,
    limitBytes: 63.9 * GiB,
  };

  it('the only node it fits on, and why not the others (rounding the commitment up and the limit down)', () => {
    expect(
      choiceReasons({
        ...base,
        fits: 1,
        verdicts: [
          { node: 'pve1', refusals: [memory] },
          { node: 'pve2', refusals: [] },
        ],
      }),
    ).toEqual([
      'any online node (pve1, pve2, pve3)',
      'pve2: the only allowed node it fits on (11 GiB of 63 GiB memory committed after)',
      'not pve1: memory on pve1: needs 8 GiB, 2 GiB free',
    ]);
  });

  it('with anti-affinity groups: its place in each, then the spread before the load', () => {
    const group = { index: 0, label: 'anti-affinity group 1 (tag app/web)', members: new Set(['a', 'b', 'c']), cap: 2 };
    expect(choiceReasons({ ...base, fits: 2, groups: [{ group, there: 1 }], verdicts: [] })).toEqual([
      'any online node (pve1, pve2, pve3)',
      'anti-affinity group 1 (tag app/web): the 2nd of its 3 VMs on pve2 (at most 2 per node)',
      'pve2: fewest of its anti-affinity groups, then least memory committed after placing (11 GiB of 63 GiB)',
    ]);
  });
});

describe('waveRefusedRefusal', () => {
  it('names the misfits and the wave refusals', () => {
    const datastore: PlacementRefusal = {
      code: 'placement-migration-datastore',
      subject: 'nfs',
      reason: 'migration datastore nfs: needs 9 GiB, 1 GiB free',
    };
    expect(waveRefusedRefusal({ name: 'a', node: 'pve1' }, ['b', 'c'], [datastore])).toEqual({
      code: 'placement-wave-refused',
      subject: 'a',
      reason:
        'a fits on pve1, but the wave is refused whole: b, c do not fit; migration datastore nfs: needs 9 GiB, 1 GiB free; set partial to migrate the VMs that fit',
    });
    expect(waveRefusedRefusal({ name: 'a', node: 'pve1' }, ['b'], []).reason).toBe(
      'a fits on pve1, but the wave is refused whole: b does not fit; set partial to migrate the VMs that fit',
    );
  });
});

describe('distinct', () => {
  it('says a refusal with the same code and reason once, keeping the first', () => {
    const shared: PlacementRefusal = {
      code: 'placement-storage-room',
      subject: 'a',
      resource: 'x',
      reason: 'nfs: full',
    };
    const other: PlacementRefusal = { code: 'placement-cpu', subject: 'a', reason: 'nfs: full' };
    expect(distinct([shared, { ...shared, resource: 'y' }, other])).toEqual([shared, other]);
  });
});
