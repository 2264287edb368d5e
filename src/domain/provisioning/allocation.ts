/**
 * VMIDs for records that have none, handed out by one allocator workflow (the single writer): it
 * knows the VMIDs Proxmox and NetBox use and those it handed out but nobody uses yet, and gives each
 * request the lowest free one in the configured range. Never `nextid`, which reserves nothing.
 */
export interface VmidRange {
  min: number;
  max: number;
}

export interface VmidRequest {
  /** Who asks (e.g. `netbox-42`): asking again with the same key gets the same VMID. */
  key: string;
  name: string;
  range: VmidRange;
}

export interface Reservation {
  key: string;
  name: string;
  vmid: number;
  at: number;
}

/** A reservation nobody used for this long is dropped (the provision that asked gave up long ago). */
export const RESERVATION_TTL_MS = 7 * 24 * 3600_000;

export type Allocation = { vmid: number } | { error: string };

/** Failure types of the allocator's update: the range is full (final) or the VMIDs in use could not be read (try again). */
export const VMID_RANGE_EXHAUSTED = 'VmidRangeExhausted';
export const VMID_READ_FAILED = 'VmidReadFailed';

export interface AllocatorState {
  reservations: Reservation[];
  allocated: number;
}

/** The lowest VMID of the range that is not taken, or undefined when the range is full. */
export function lowestFree(range: VmidRange, taken: ReadonlySet<number>): number | undefined {
  for (let vmid = range.min; vmid <= range.max; vmid++) if (!taken.has(vmid)) return vmid;
  return undefined;
}

/**
 * Answers requests in order against the VMIDs in use: a key already holding a reservation gets it
 * again; otherwise the lowest free VMID, which is reserved. Reservations that Proxmox or NetBox now
 * show in use have done their job and are dropped (the record holds the VMID from then on), and so
 * are those older than RESERVATION_TTL_MS.
 */
export function allocate(
  requests: readonly VmidRequest[],
  used: readonly number[],
  reservations: readonly Reservation[],
  now: number,
): { answers: Allocation[]; reservations: Reservation[] } {
  const inUse = new Set(used);
  const asked = (r: Reservation) => requests.some((q) => q.key === r.key);
  const kept = reservations.filter((r) => asked(r) || (!inUse.has(r.vmid) && now - r.at < RESERVATION_TTL_MS));
  const answered = new Map<string, Reservation>(kept.map((r) => [r.key, r]));
  const taken = new Set([...inUse, ...kept.map((r) => r.vmid)]);
  const answers = requests.map((request): Allocation => {
    const earlier = answered.get(request.key);
    if (earlier) return { vmid: earlier.vmid };
    const vmid = lowestFree(request.range, taken);
    if (vmid === undefined)
      return {
        error: `no free VMID in ${request.range.min}–${request.range.max} (provisioning.vmidRange); widen the range or free VMIDs`,
      };
    taken.add(vmid);
    const reservation = { key: request.key, name: request.name, vmid, at: now };
    answered.set(request.key, reservation);
    kept.push(reservation);
    return { vmid };
  });
  return { answers, reservations: kept };
}

/** The allocator's workflow id (one per deployment: scoped like the semaphores). */
export const VMID_ALLOCATOR_KEY = 'vmid-allocator';
