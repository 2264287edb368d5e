import { allocate, lowestFree, RESERVATION_TTL_MS, type Reservation } from '../../../../src/domain/provisioning';

const range = { min: 100, max: 105 };
const ask = (key: string, r = range) => ({ key, name: key, range: r });

describe('VMID allocation', () => {
  it('finds the lowest VMID of the range that is not taken', () => {
    expect(lowestFree(range, new Set([100, 101, 103]))).toBe(102);
    expect(lowestFree(range, new Set([100, 101, 102, 103, 104, 105]))).toBeUndefined();
    expect(lowestFree({ min: 7, max: 7 }, new Set())).toBe(7);
  });

  it('gives a batch distinct VMIDs around those in use, and reserves them', () => {
    const result = allocate([ask('a'), ask('b'), ask('c')], [100, 102], [], 1000);
    expect(result.answers).toEqual([{ vmid: 101 }, { vmid: 103 }, { vmid: 104 }]);
    expect(result.reservations).toEqual([
      { key: 'a', name: 'a', vmid: 101, at: 1000 },
      { key: 'b', name: 'b', vmid: 103, at: 1000 },
      { key: 'c', name: 'c', vmid: 104, at: 1000 },
    ]);
  });

  it('never hands out a reserved VMID that nobody uses yet, and gives a key asking again its own', () => {
    const reserved: Reservation[] = [{ key: 'a', name: 'a', vmid: 100, at: 1000 }];
    const result = allocate([ask('b'), ask('a')], [], reserved, 2000);
    expect(result.answers).toEqual([{ vmid: 101 }, { vmid: 100 }]);
    expect(result.reservations.map((r) => r.vmid).sort()).toEqual([100, 101]);
  });

  it('drops reservations once Proxmox or NetBox uses them, or when they are old; keeps them for a key asking again', () => {
    const reserved: Reservation[] = [
      { key: 'used', name: 'used', vmid: 100, at: 1000 },
      { key: 'old', name: 'old', vmid: 101, at: 0 },
      { key: 'fresh', name: 'fresh', vmid: 102, at: RESERVATION_TTL_MS },
      { key: 'again', name: 'again', vmid: 103, at: 1000 },
    ];
    const now = RESERVATION_TTL_MS + 1;
    const result = allocate([ask('again'), ask('new')], [100, 103], reserved, now);
    expect(result.answers).toEqual([{ vmid: 103 }, { vmid: 101 }]);
    expect(result.reservations.map((r) => r.key)).toEqual(['fresh', 'again', 'new']);
  });

  it('says when a range is full, and still serves requests with another range', () => {
    const result = allocate([ask('a', { min: 100, max: 100 }), ask('b', { min: 200, max: 201 })], [100], [], 0);
    expect(result.answers).toEqual([
      { error: 'no free VMID in 100–100 (provisioning.vmidRange); widen the range or free VMIDs' },
      { vmid: 200 },
    ]);
    expect(result.reservations.map((r) => r.key)).toEqual(['b']);
  });
});
