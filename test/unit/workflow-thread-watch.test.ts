import { ActivationsInHand } from '../../worker/workflow-thread';

describe('ActivationsInHand: when a workflow thread is stuck', () => {
  it('is not stuck with nothing in hand, however long since the last activation', () => {
    const hand = new ActivationsInHand();
    hand.sent('run-1', 0)(10);
    expect(hand.stuck(1_000_000, 60_000)).toBeUndefined();
  });

  it('is stuck on the oldest activation once it has held one for the limit without finishing any, naming its workflow', () => {
    const hand = new ActivationsInHand();
    hand.created('run-1', 'migrateVm vm-1');
    hand.sent('run-1', 1_000);
    hand.sent('run-2', 1_500);
    expect(hand.stuck(60_999, 60_000)).toBeUndefined();
    expect(hand.stuck(61_000, 60_000)).toEqual({ runId: 'run-1', workflow: 'migrateVm vm-1', heldMs: 60_000 });
  });

  it('restarts the clock whenever any activation is answered: one waiting behind others is not stuck', () => {
    const hand = new ActivationsInHand();
    const first = hand.sent('run-1', 0);
    hand.sent('run-2', 10);
    first(50_000);
    expect(hand.stuck(100_000, 60_000)).toBeUndefined();
    expect(hand.stuck(110_000, 60_000)).toEqual({ runId: 'run-2', workflow: undefined, heldMs: 60_000 });
  });

  it('starts the clock at the first activation sent to an idle thread', () => {
    const hand = new ActivationsInHand();
    hand.sent('run-1', 0)(0);
    hand.sent('run-2', 500_000);
    expect(hand.stuck(559_999, 60_000)).toBeUndefined();
    expect(hand.stuck(560_000, 60_000)?.runId).toBe('run-2');
  });

  it('forgets a disposed workflow’s name', () => {
    const hand = new ActivationsInHand();
    hand.created('run-1', 'migrateVm vm-1');
    hand.disposed('run-1');
    hand.sent('run-1', 0);
    expect(hand.stuck(60_000, 60_000)?.workflow).toBeUndefined();
  });
});
