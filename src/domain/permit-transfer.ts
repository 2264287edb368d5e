import type { PermitHolder, PermitWaiter, SemaphoreState } from './permits';

/**
 * Permit transfer: while every permit is held and requests wait, each holder is told which waiter
 * comes after it; when its work ends it grants that waiter directly and tells the semaphore, so the
 * next holder starts one signal after the work ended instead of after a round trip through the
 * semaphore. The semaphore stays the authority: the count of holders never grows by a transfer.
 */

/** A holder told (or to be told) which waiter takes its permit. */
export interface Designation {
  holder: PermitHolder;
  waiter: PermitWaiter;
}

/**
 * Gives holders without a successor the first waiters no other holder was given, first granted to
 * first waiting (the oldest holder is likely to finish first). Drops successors that no longer wait
 * (withdrawn, or granted a freed permit meanwhile). None while more permits are held than there are
 * (after the limit was lowered): those holders release, and the surplus goes. Mutates holders'
 * `successor`; returns the new designations, to be sent.
 */
export function designateSuccessors(state: SemaphoreState): Designation[] {
  const waiting = new Set(state.waiting.map((w) => w.requestId));
  for (const h of state.holders) if (h.successor !== undefined && !waiting.has(h.successor)) delete h.successor;
  if (state.holders.length > state.permits) return [];
  const taken = new Set(state.holders.map((h) => h.successor).filter((s) => s !== undefined));
  const free = state.waiting.filter((w) => !taken.has(w.requestId));
  const designations: Designation[] = [];
  for (const holder of [...state.holders].sort((a, b) => a.grantedAt - b.grantedAt)) {
    if (holder.successor !== undefined) continue;
    const waiter = free.shift();
    if (!waiter) break;
    holder.successor = waiter.requestId;
    designations.push({ holder, waiter });
  }
  return designations;
}

/**
 * `from` handed its permit to `to`: `from` no longer holds, and `to` holds if it still waits (it was
 * granted directly and runs). A `to` that no longer waits (withdrew, or holds already) cannot use
 * the grant, so the permit is free. Returns whether `to` became a holder.
 */
export function applyTransfer(state: SemaphoreState, from: string, to: string, now: number): boolean {
  state.holders = state.holders.filter((h) => h.requestId !== from);
  const waiter = state.waiting.find((w) => w.requestId === to);
  if (!waiter) return false;
  state.waiting = state.waiting.filter((w) => w.requestId !== to);
  state.holders.push({ ...waiter, grantedAt: now, leaseUntil: now + waiter.leaseMs });
  state.granted += 1;
  return true;
}
