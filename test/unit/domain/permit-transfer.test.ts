import { applyTransfer, designateSuccessors } from '../../../src/domain/permit-transfer';
import type { PermitHolder, PermitWaiter, SemaphoreState } from '../../../src/domain/permits';

const holder = (requestId: string, grantedAt: number, successor?: string): PermitHolder => ({
  requestId,
  holderWorkflowId: `wf-${requestId}`,
  label: requestId,
  leaseMs: 1000,
  grantedAt,
  leaseUntil: grantedAt + 1000,
  ...(successor ? { successor } : {}),
});
const waiter = (requestId: string): PermitWaiter => ({
  requestId,
  holderWorkflowId: `wf-${requestId}`,
  label: requestId,
  leaseMs: 500,
  requestedAt: 1,
});
const semaphore = (permits: number, holders: PermitHolder[], waiting: PermitWaiter[]): SemaphoreState => ({
  key: 'k',
  permits,
  holders,
  waiting,
  expiredLeases: 0,
  granted: holders.length,
});

describe('designateSuccessors', () => {
  it('gives the oldest holders the first waiters, one each, and returns what to send', () => {
    const state = semaphore(2, [holder('h2', 20), holder('h1', 10)], [waiter('w1'), waiter('w2'), waiter('w3')]);
    const sent = designateSuccessors(state);
    expect(sent.map((d) => [d.holder.requestId, d.waiter.requestId])).toEqual([
      ['h1', 'w1'],
      ['h2', 'w2'],
    ]);
    expect(state.holders.map((h) => h.successor)).toEqual(['w2', 'w1']);
    // Told once: nothing new to send the next time.
    expect(designateSuccessors(state)).toEqual([]);
  });

  it('re-designates when the successor stopped waiting (withdrew or was granted a freed permit)', () => {
    const state = semaphore(1, [holder('h1', 10, 'w1')], [waiter('w2')]);
    const sent = designateSuccessors(state);
    expect(sent.map((d) => d.waiter.requestId)).toEqual(['w2']);
    expect(state.holders[0]!.successor).toBe('w2');
  });

  it('drops a successor that stopped waiting when no one else waits', () => {
    const state = semaphore(1, [holder('h1', 10, 'w1')], []);
    expect(designateSuccessors(state)).toEqual([]);
    expect(state.holders[0]!.successor).toBeUndefined();
  });

  it('never gives one waiter to two holders', () => {
    const state = semaphore(2, [holder('h1', 10, 'w1'), holder('h2', 20)], [waiter('w1')]);
    expect(designateSuccessors(state)).toEqual([]);
    expect(state.holders[1]!.successor).toBeUndefined();
  });

  it('designates none while more permits are held than there are (the limit was lowered)', () => {
    const state = semaphore(1, [holder('h1', 10), holder('h2', 20)], [waiter('w1')]);
    expect(designateSuccessors(state)).toEqual([]);
    expect(state.holders.every((h) => h.successor === undefined)).toBe(true);
  });
});

describe('applyTransfer', () => {
  it('puts the waiting successor in the holder’s place, with its own lease from now', () => {
    const state = semaphore(1, [holder('h1', 10, 'w1')], [waiter('w1'), waiter('w2')]);
    expect(applyTransfer(state, 'h1', 'w1', 100)).toBe(true);
    expect(state.holders).toEqual([expect.objectContaining({ requestId: 'w1', grantedAt: 100, leaseUntil: 600 })]);
    expect(state.waiting.map((w) => w.requestId)).toEqual(['w2']);
    expect(state.granted).toBe(2);
  });

  it('frees the permit when the successor no longer waits (it withdrew, or already holds)', () => {
    const withdrew = semaphore(1, [holder('h1', 10, 'w1')], [waiter('w2')]);
    expect(applyTransfer(withdrew, 'h1', 'w1', 100)).toBe(false);
    expect(withdrew.holders).toEqual([]);
    expect(withdrew.waiting.map((w) => w.requestId)).toEqual(['w2']);

    const holds = semaphore(2, [holder('h1', 10, 'w1'), holder('w1', 50)], []);
    expect(applyTransfer(holds, 'h1', 'w1', 100)).toBe(false);
    expect(holds.holders.map((h) => h.requestId)).toEqual(['w1']);
  });

  it('never raises the number of holders', () => {
    const state = semaphore(2, [holder('h1', 10, 'w1'), holder('h2', 20, 'w2')], [waiter('w1'), waiter('w2')]);
    applyTransfer(state, 'h1', 'w1', 100);
    applyTransfer(state, 'h2', 'w2', 100);
    applyTransfer(state, 'h2', 'w2', 100); // repeated (replayed, retried)
    expect(state.holders.map((h) => h.requestId).sort()).toEqual(['w1', 'w2']);
  });
});
