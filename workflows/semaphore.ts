import {
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  log,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { describeSemaphore, type SemaphoreInput, type SemaphoreState } from '../src/domain/permits';
import {
  acquirePermitSignal,
  permitGrantedSignal,
  permitSuccessorSignal,
  releasePermitSignal,
  renewPermitSignal,
  semaphoreStateQuery,
  setPermitsUpdate,
  transferPermitSignal,
} from '../src/domain/messages';
import { applyTransfer, designateSuccessors } from '../src/domain/permit-transfer';
import { workflowNow } from './clock';
import { FerryKind, FerryStage } from '../src/domain/search-attributes';

const MAX_PERMITS = 1000;

/**
 * A counting semaphore for one global limit (vMotions, imports into one storage, SDN writes, …).
 * Requesters signal-with-start it; permits are granted first come, first served; a holder that
 * vanishes loses its permit when its lease runs out.
 */
export async function semaphore(input: SemaphoreInput): Promise<void> {
  const state: SemaphoreState = input.carried ?? {
    key: input.key,
    permits: input.permits,
    holders: [],
    waiting: [],
    expiredLeases: 0,
    granted: 0,
  };
  let changed = true;
  const onChange = () => (changed = true);
  setSemaphoreHandlers(state, onChange);

  upsertSearchAttributes([
    { key: FerryKind, value: 'semaphore' },
    { key: FerryStage, value: `limit ${state.key}` },
  ]);

  // Grants are sent together in the task that frees the permits; holders are told their successor and
  // hand their permit to it directly (src/domain/permit-transfer); one lease timer is kept until it fires.
  const grants = new PendingGrants(state, onChange);
  const leaseTimer = new LeaseTimer(onChange);
  for (;;) {
    expireLeases(state);
    grants.grantFreePermits();
    grants.designateSuccessors();
    setCurrentDetails(describeSemaphore(state));
    changed = false;

    if (workflowInfo().continueAsNewSuggested) {
      await condition(() => allHandlersFinished() && grants.settled());
      await continueAsNew<typeof semaphore>({ key: state.key, permits: state.permits, carried: state });
    }
    leaseTimer.arm(state);
    await condition(() => changed);
  }
}

/** Requests, releases, hand-overs and lease renewals change the state and wake the loop; a person may set the permits. */
function setSemaphoreHandlers(state: SemaphoreState, onChange: () => void): void {
  const known = (requestId: string) =>
    state.holders.some((h) => h.requestId === requestId) || state.waiting.some((w) => w.requestId === requestId);

  setHandler(acquirePermitSignal, (request) => {
    if (known(request.requestId)) return; // a retried or replayed request
    state.waiting.push({ ...request, requestedAt: workflowNow() });
    onChange();
  });
  setHandler(releasePermitSignal, ({ requestId }) => {
    state.holders = state.holders.filter((h) => h.requestId !== requestId);
    state.waiting = state.waiting.filter((w) => w.requestId !== requestId);
    onChange();
  });
  setHandler(transferPermitSignal, ({ requestId, to }) => {
    applyTransfer(state, requestId, to, workflowNow());
    onChange();
  });
  setHandler(renewPermitSignal, ({ requestId, leaseMs }) => {
    const holder = state.holders.find((h) => h.requestId === requestId);
    if (holder) {
      holder.leaseMs = leaseMs;
      holder.leaseUntil = workflowNow() + leaseMs;
      onChange();
    }
  });
  setHandler(
    setPermitsUpdate,
    (permits) => {
      state.permits = permits;
      onChange();
      return state;
    },
    { validator: validatePermits },
  );
  setHandler(semaphoreStateQuery, () => state);
}

function validatePermits(permits: number): void {
  if (!Number.isInteger(permits) || permits < 0 || permits > MAX_PERMITS) {
    throw new Error(`permits must be a whole number from 0 to ${MAX_PERMITS}, got ${permits}`);
  }
}

/**
 * One timer for the earliest lease end, left running across loops (renewals only push leases later,
 * so it may fire early: then nothing expires and the next one is armed).
 */
class LeaseTimer {
  private dueAt = Infinity;

  constructor(private readonly onFire: () => void) {}

  arm(state: SemaphoreState): void {
    const nextExpiry = Math.min(...state.holders.map((h) => h.leaseUntil));
    if (!Number.isFinite(nextExpiry) || nextExpiry >= this.dueAt) return;
    this.dueAt = nextExpiry;
    void sleep(Math.max(1, nextExpiry - workflowNow()), { summary: 'the earliest lease runs out' }).then(() => {
      if (this.dueAt === nextExpiry) this.dueAt = Infinity;
      this.onFire();
    });
  }
}

function expireLeases(state: SemaphoreState): void {
  const now = workflowNow();
  const expired = state.holders.filter((h) => h.leaseUntil <= now);
  if (expired.length === 0) return;
  for (const h of expired) log.warn('permit lease expired', { key: state.key, requestId: h.requestId, label: h.label });
  state.expiredLeases += expired.length;
  state.holders = state.holders.filter((h) => h.leaseUntil > now);
}

/**
 * Grants sent without waiting for one another: every permit freed in a workflow task is granted in
 * that same task. A requester found gone gives its permit back, and the loop runs again.
 */
class PendingGrants {
  private inFlight = 0;

  constructor(
    private readonly state: SemaphoreState,
    private readonly onChange: () => void,
  ) {}

  settled(): boolean {
    return this.inFlight === 0;
  }

  grantFreePermits(): void {
    const { state } = this;
    while (state.holders.length < state.permits && state.waiting.length > 0) {
      const next = state.waiting.shift()!;
      const now = workflowNow();
      state.holders.push({ ...next, grantedAt: now, leaseUntil: now + next.leaseMs });
      state.granted += 1;
      this.inFlight += 1;
      void getExternalWorkflowHandle(next.holderWorkflowId)
        .signal(permitGrantedSignal, { key: state.key, requestId: next.requestId })
        .catch((err: unknown) => {
          log.warn('permit requester vanished', { key: state.key, requestId: next.requestId, error: String(err) });
          state.granted -= 1;
          state.holders = state.holders.filter((h) => h.requestId !== next.requestId);
          this.onChange();
        })
        .finally(() => (this.inFlight -= 1));
    }
  }

  /** Tells holders which waiter to hand their permit to (sent together, like the grants). */
  designateSuccessors(): void {
    const { state } = this;
    for (const { holder, waiter } of designateSuccessors(state)) {
      this.inFlight += 1;
      const successor = { requestId: waiter.requestId, holderWorkflowId: waiter.holderWorkflowId };
      void getExternalWorkflowHandle(holder.holderWorkflowId)
        .signal(permitSuccessorSignal, { key: state.key, requestId: holder.requestId, successor })
        // A holder gone: its lease will run out; its successor is granted then or by another.
        .catch((err: unknown) =>
          log.warn('permit holder vanished', { key: state.key, requestId: holder.requestId, error: String(err) }),
        )
        .finally(() => (this.inFlight -= 1));
    }
  }
}
