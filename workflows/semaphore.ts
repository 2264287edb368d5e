import {
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  log,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { describeSemaphore, type SemaphoreInput, type SemaphoreState } from '../src/domain/permits';
import {
  acquirePermitSignal,
  permitGrantedSignal,
  releasePermitSignal,
  renewPermitSignal,
  semaphoreStateQuery,
  setPermitsUpdate,
} from '../src/domain/messages';
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
  const known = (requestId: string) =>
    state.holders.some((h) => h.requestId === requestId) || state.waiting.some((w) => w.requestId === requestId);

  setHandler(acquirePermitSignal, (request) => {
    if (known(request.requestId)) return; // a retried or replayed request
    state.waiting.push({ ...request, requestedAt: workflowNow() });
    changed = true;
  });
  setHandler(releasePermitSignal, ({ requestId }) => {
    state.holders = state.holders.filter((h) => h.requestId !== requestId);
    state.waiting = state.waiting.filter((w) => w.requestId !== requestId);
    changed = true;
  });
  setHandler(renewPermitSignal, ({ requestId, leaseMs }) => {
    const holder = state.holders.find((h) => h.requestId === requestId);
    if (holder) {
      holder.leaseMs = leaseMs;
      holder.leaseUntil = workflowNow() + leaseMs;
      changed = true;
    }
  });
  setHandler(
    setPermitsUpdate,
    (permits) => {
      state.permits = permits;
      changed = true;
      return state;
    },
    {
      validator: (permits) => {
        if (!Number.isInteger(permits) || permits < 0 || permits > MAX_PERMITS) {
          throw new Error(`permits must be a whole number from 0 to ${MAX_PERMITS}, got ${permits}`);
        }
      },
    },
  );
  setHandler(semaphoreStateQuery, () => state);

  upsertSearchAttributes([
    { key: FerryKind, value: 'semaphore' },
    { key: FerryStage, value: `limit ${state.key}` },
  ]);

  for (;;) {
    expireLeases(state);
    await grantFreePermits(state);
    setCurrentDetails(describeSemaphore(state));
    changed = false;

    if (workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof semaphore>({ key: state.key, permits: state.permits, carried: state });
    }
    const nextExpiry = Math.min(...state.holders.map((h) => h.leaseUntil));
    const timeout = Number.isFinite(nextExpiry) ? Math.max(1, nextExpiry - workflowNow()) : undefined;
    if (timeout === undefined) await condition(() => changed);
    else await condition(() => changed, timeout);
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

async function grantFreePermits(state: SemaphoreState): Promise<void> {
  while (state.holders.length < state.permits && state.waiting.length > 0) {
    const next = state.waiting.shift()!;
    const now = workflowNow();
    state.holders.push({ ...next, grantedAt: now, leaseUntil: now + next.leaseMs });
    try {
      await getExternalWorkflowHandle(next.holderWorkflowId).signal(permitGrantedSignal, {
        key: state.key,
        requestId: next.requestId,
      });
      state.granted += 1;
    } catch (err) {
      // The requester is gone (finished, terminated): its permit goes to the next in line.
      log.warn('permit requester vanished', { key: state.key, requestId: next.requestId, error: String(err) });
      state.holders = state.holders.filter((h) => h.requestId !== next.requestId);
    }
  }
}
