import { coordinationQueue, scopedLimitKey } from '../../src/domain/task-queues';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createPermitActivities } from '../../activities/permits';
import { semaphoreWorkflowId } from '../../src/domain/permits';
import { semaphoreStateQuery } from '../../src/domain/messages';
import { permitHeldQuery, type holdPermit, type holdPermitUntilKilled } from '../workflow-bundle/permit-probes';
import { createTimeSkippingEnv, uniqueName, workflowBundlePath } from '../helpers/temporal';

const HOUR = 3_600_000;

async function waitUntil(probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      if (await probe()) return;
    } catch (err) {
      last = err; // the workflow may not have run its first task yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`condition not met within ${timeoutMs} ms (last error: ${String(last)})`);
}

describe('semaphore lease under time skipping', () => {
  // Hours of leases and renewals skipped through in seconds on a quiet machine; beside the chaos test's
  // start-up (which `npm test` may run at the same time) a minute was once not enough.
  jest.setTimeout(180_000);
  let env: TestWorkflowEnvironment;
  beforeAll(async () => {
    env = await createTimeSkippingEnv();
  });
  afterAll(() => env?.teardown());

  // The holders run on the main queue, the semaphore on the coordination queue beside it.
  const permitWorker = async (taskQueue: string) => {
    const create = (queue: string) =>
      Worker.create({
        connection: env.nativeConnection,
        taskQueue: queue,
        workflowBundle: { codePath: workflowBundlePath() },
        activities: createPermitActivities(),
      });
    const [main, coordination] = [await create(taskQueue), await create(coordinationQueue(taskQueue))];
    return { runUntil: <T>(fn: () => Promise<T>) => main.runUntil(() => coordination.runUntil(fn)) };
  };

  it('takes the permit back from a vanished holder when its 2-hour lease runs out', async () => {
    const taskQueue = uniqueName('lease');
    const key = uniqueName('limit');
    const worker = await permitWorker(taskQueue);
    await worker.runUntil(async () => {
      const vanishing = await env.client.workflow.start<typeof holdPermitUntilKilled>('holdPermitUntilKilled', {
        taskQueue,
        workflowId: `${key}-vanishing`,
        args: [{ key, permits: 1, leaseMs: 2 * HOUR, holdMs: 0 }],
      });
      const semaphore = env.client.workflow.getHandle(semaphoreWorkflowId(scopedLimitKey(taskQueue, key)));
      // Wait (in real time) until the first holder has the permit, then make it vanish.
      await waitUntil(() => vanishing.query(permitHeldQuery), 30_000);
      await vanishing.terminate('simulated crash: the holder never releases');

      const startedAt = await env.currentTimeMs();
      const next = await env.client.workflow.execute<typeof holdPermit>('holdPermit', {
        taskQueue,
        workflowId: `${key}-next`,
        args: [{ key, permits: 1, leaseMs: HOUR, holdMs: 60_000 }],
      });
      const waitedWallClock = (await env.currentTimeMs()) - startedAt;

      expect(next.waitedMs).toBeGreaterThanOrEqual(2 * HOUR - 60_000);
      expect(next.waitedMs).toBeLessThan(2 * HOUR + 60_000);
      expect(waitedWallClock).toBeGreaterThanOrEqual(2 * HOUR - 60_000);
      const state = await semaphore.query(semaphoreStateQuery);
      expect(state.expiredLeases).toBe(1);
      expect(state.granted).toBe(2);
    });
  });

  it('keeps renewing the lease of a holder that still works, and hands the permit on when it ends', async () => {
    const taskQueue = uniqueName('renew');
    const key = uniqueName('limit');
    const worker = await permitWorker(taskQueue);
    await worker.runUntil(async () => {
      // Holds for three hours on a one-hour lease: only renewals keep the permit.
      const holder = await env.client.workflow.start<typeof holdPermit>('holdPermit', {
        taskQueue,
        workflowId: `${key}-long`,
        args: [{ key, permits: 1, leaseMs: HOUR, holdMs: 3 * HOUR }],
      });
      await waitUntil(() => holder.query(permitHeldQuery), 30_000);
      const next = await env.client.workflow.execute<typeof holdPermit>('holdPermit', {
        taskQueue,
        workflowId: `${key}-next`,
        args: [{ key, permits: 1, leaseMs: HOUR, holdMs: 60_000 }],
      });
      const first = await holder.result();

      expect(first.releasedAt - first.grantedAt).toBeGreaterThanOrEqual(3 * HOUR);
      expect(next.grantedAt).toBeGreaterThanOrEqual(first.releasedAt);
      expect(next.waitedMs).toBeGreaterThanOrEqual(3 * HOUR - 60_000);
      const state = await env.client.workflow
        .getHandle(semaphoreWorkflowId(scopedLimitKey(taskQueue, key)))
        .query(semaphoreStateQuery);
      expect(state).toMatchObject({ expiredLeases: 0, granted: 2, holders: [], waiting: [] });
    });
  });
});
