import {
  ActivityCancellationType,
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  proxyActivities,
  setHandler,
  sleep,
  type SignalDefinition,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { PermitActivities } from '../activities/permits';
import { semaphoreWorkflowId } from '../src/domain/permits';
import { scopedLimitKey } from '../src/domain/task-queues';
import {
  permitGrantedSignal,
  permitSuccessorSignal,
  releasePermitSignal,
  renewPermitSignal,
  transferPermitSignal,
} from '../src/domain/messages';
import type { PermitSuccessor } from '../src/domain/permits';
import { workflowNow } from './clock';
import { mainQueue as deploymentQueue } from './queues';

const { requestPermit } = proxyActivities<PermitActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', maximumInterval: '30s' },
  // On cancellation, wait until the request has really been queued (or failed), so the withdrawal
  // sent afterwards cannot overtake it and leave a stale request at the semaphore.
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
});

/** How a lease renewal's timer is labelled (the report leaves these out: they are not waits). */
export const LEASE_RENEWAL = 'renew the lease of a permit of ';

const grantedRequests = new Set<string>();
/** Per held request: the waiter the semaphore said to hand the permit to. */
const successors = new Map<string, PermitSuccessor>();
let listening = false;

function listenForGrants(): void {
  if (listening) return;
  listening = true;
  setHandler(permitGrantedSignal, ({ requestId }) => {
    grantedRequests.add(requestId);
  });
  setHandler(permitSuccessorSignal, ({ requestId, successor }) => {
    successors.set(requestId, successor);
  });
}

export interface PermitOptions {
  /** Semaphore key, see PERMIT_KEYS (scoped by the workflow's main queue, see scopedLimitKey). */
  key: string;
  /** Permits the semaphore starts with if this request is the one that starts it. */
  permits: number;
  /** How long the permit is held at most without renewal before the semaphore takes it back. */
  leaseMs: number;
  label: string;
}

export interface PermitWait {
  /** How long the workflow waited for the permit. */
  waitedMs: number;
}

/**
 * Runs `fn` while holding one permit of a global limit. The lease is renewed every third of it while
 * `fn` runs, so only a holder that vanishes loses its permit. The permit is released when `fn` ends,
 * also on failure or cancellation.
 */
export async function withPermit<T>(
  options: PermitOptions,
  fn: (wait: PermitWait) => Promise<T>,
  /** Told once the request is queued at the semaphore: the holder waits from then until the grant. */
  onQueued?: () => void,
): Promise<T> {
  listenForGrants();
  const mainQueue = deploymentQueue();
  const key = scopedLimitKey(mainQueue, options.key);
  const requestId = `${workflowInfo().workflowId}/${uuid4()}`;
  const askedAt = workflowNow();
  let held = false;
  try {
    await requestPermit.executeWithOptions({ summary: `ask for a permit of ${options.key}: ${options.label}` }, [
      {
        key,
        permits: options.permits,
        // The main queue: the activity starts the semaphore on the coordination queue beside it.
        taskQueue: mainQueue,
        request: {
          requestId,
          holderWorkflowId: workflowInfo().workflowId,
          label: options.label,
          leaseMs: options.leaseMs,
        },
      },
    ]);
    onQueued?.();
    await condition(() => grantedRequests.has(requestId));
    held = true;
    const work = () => fn({ waitedMs: workflowNow() - askedAt });
    return await whileRenewing(key, requestId, options.leaseMs, work);
  } finally {
    grantedRequests.delete(requestId);
    const successor = successors.get(requestId);
    successors.delete(requestId);
    // Release (or withdraw the request) even when this scope is being cancelled.
    await CancellationScope.nonCancellable(() =>
      // A holder told its successor hands the permit to it directly (src/domain/permit-transfer).
      held && successor
        ? handOver(key, requestId, successor)
        : signalSemaphore(key, releasePermitSignal, { requestId }),
    );
  }
}

/**
 * Grants the permit straight to the successor and tells the semaphore, both at once (the transfer
 * then reaches the semaphore long before the successor could release); one of this workflow's own
 * requests is granted without a signal. A successor gone (the grant cannot be delivered) is released
 * on its behalf, so the semaphore grants the next in line.
 */
async function handOver(key: string, requestId: string, successor: PermitSuccessor): Promise<void> {
  const transfer = signalSemaphore(key, transferPermitSignal, { requestId, to: successor.requestId });
  if (successor.holderWorkflowId === workflowInfo().workflowId) {
    grantedRequests.add(successor.requestId);
    return transfer;
  }
  const grant = getExternalWorkflowHandle(successor.holderWorkflowId)
    .signal(permitGrantedSignal, { key, requestId: successor.requestId })
    .catch((err: unknown) => {
      if (isCancellation(err)) throw err;
      log.warn('permit successor vanished', { key, successor: successor.requestId, error: String(err) });
      return signalSemaphore(key, releasePermitSignal, { requestId: successor.requestId });
    });
  await Promise.all([transfer, grant]);
}

/** Runs `fn` and renews the lease on a durable timer until `fn` settles. */
async function whileRenewing<T>(key: string, requestId: string, leaseMs: number, fn: () => Promise<T>): Promise<T> {
  const renewals = new CancellationScope();
  const renewing = renewals
    .run(async () => {
      for (;;) {
        await sleep(Math.max(1, Math.floor(leaseMs / 3)), { summary: `${LEASE_RENEWAL}${key}` });
        await signalSemaphore(key, renewPermitSignal, { requestId, leaseMs });
      }
    })
    .catch((err: unknown) => {
      if (!isCancellation(err)) throw err;
    });
  try {
    return await fn();
  } finally {
    renewals.cancel();
    await renewing;
  }
}

/**
 * Signals the semaphore; a semaphore that never started (the request was cancelled before it was
 * sent) or is gone has nothing to release or renew, so that is logged, not thrown.
 */
async function signalSemaphore<A>(key: string, signal: SignalDefinition<[A]>, arg: A): Promise<void> {
  try {
    await getExternalWorkflowHandle(semaphoreWorkflowId(key)).signal(signal, arg);
  } catch (err) {
    if (isCancellation(err)) throw err;
    log.warn('could not signal the semaphore', { key, signal: signal.name, error: String(err) });
  }
}
