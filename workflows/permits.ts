import {
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  proxyActivities,
  setHandler,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { semaphoreWorkflowId } from '../src/domain/permits';
import { scopedLimitKey } from '../src/domain/task-queues';
import { permitGrantedSignal, releasePermitSignal } from './messages';
import { workflowNow } from './clock';

const { requestPermit } = proxyActivities<Activities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', maximumInterval: '30s' },
});

const grantedRequests = new Set<string>();
let listening = false;

function listenForGrants(): void {
  if (listening) return;
  listening = true;
  setHandler(permitGrantedSignal, ({ requestId }) => {
    grantedRequests.add(requestId);
  });
}

export interface PermitOptions {
  /** Semaphore key, see PERMIT_KEYS (scoped by the workflow's main queue, see scopedLimitKey). */
  key: string;
  /** Permits the semaphore starts with if this request is the one that starts it. */
  permits: number;
  /** How long the permit is held at most before the semaphore takes it back. */
  leaseMs: number;
  label: string;
}

export interface PermitWait {
  /** How long the workflow waited for the permit. */
  waitedMs: number;
}

/**
 * Runs `fn` while holding one permit of a global limit. The permit is released when `fn` ends, also on
 * failure or cancellation.
 */
export async function withPermit<T>(options: PermitOptions, fn: (wait: PermitWait) => Promise<T>): Promise<T> {
  listenForGrants();
  const key = scopedLimitKey(workflowInfo().taskQueue, options.key);
  const requestId = `${workflowInfo().workflowId}/${uuid4()}`;
  const askedAt = workflowNow();
  await requestPermit({
    key,
    permits: options.permits,
    // The semaphore runs where the workflows that use it run.
    taskQueue: workflowInfo().taskQueue,
    request: { requestId, holderWorkflowId: workflowInfo().workflowId, label: options.label, leaseMs: options.leaseMs },
  });
  try {
    await condition(() => grantedRequests.has(requestId));
    return await fn({ waitedMs: workflowNow() - askedAt });
  } finally {
    grantedRequests.delete(requestId);
    // Release (or withdraw the request) even when this scope is being cancelled.
    await CancellationScope.nonCancellable(() =>
      getExternalWorkflowHandle(semaphoreWorkflowId(key)).signal(releasePermitSignal, { requestId }),
    );
  }
}
