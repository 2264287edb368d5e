import { occupancy } from '../../../src/domain/vmid';

describe('occupancy (the rule migration and provisioning share)', () => {
  const existing = [
    { vmid: 9001, name: 'web1' },
    { vmid: 9002 },
    { vmid: 300, name: 'db1' },
    { vmid: 301, name: 'db1' },
  ];
  it('is free, adopt or a clash that says which', () => {
    expect(occupancy(9010, 'new', existing)).toEqual({ kind: 'free' });
    expect(occupancy(9001, 'web1', existing)).toEqual({ kind: 'adopt' });
    expect(occupancy(9001, 'web2', existing)).toEqual({
      kind: 'clash',
      clash: { kind: 'vmid-taken', vmid: 9001, name: 'web2', holder: 'web1' },
    });
    expect(occupancy(9002, 'web2', existing)).toEqual({
      kind: 'clash',
      clash: { kind: 'vmid-taken', vmid: 9002, name: 'web2' },
    });
    expect(occupancy(9003, 'db1', existing)).toEqual({
      kind: 'clash',
      clash: { kind: 'name-taken', vmid: 9003, name: 'db1', vmids: [300, 301] },
    });
  });
});
