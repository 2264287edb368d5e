import { scopedLimitKey } from '../../src/domain/task-queues';
import { WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import { createPermitActivities } from '../../activities/permits';
import { semaphoreWorkflowId } from '../../src/domain/permits';
import { semaphoreStateQuery, setPermitsUpdate } from '../../src/domain/messages';
import { permitHeldQuery, type holdPermit, type holdPermitUntilKilled } from '../workflow-bundle/permit-probes';
import { CancelledFailure } from '@temporalio/common';
import { until } from '../helpers/wait';
import { NativeConnection } from '@temporalio/worker';
import {
  connectTestTemporal,
  createTestWorkers,
  devServerAddress,
  uniqueName,
  type TestTemporal,
} from '../helpers/temporal';

/** Largest number of [start, end) intervals that overlap at one instant. */
function peakOverlap(intervals: Array<{ grantedAt: number; releasedAt: number }>): number {
  const events = intervals.flatMap((i) => [
    { t: i.grantedAt, d: 1 },
    { t: i.releasedAt, d: -1 },
  ]);
  events.sort((a, b) => a.t - b.t || a.d - b.d);
  let current = 0;
  let peak = 0;
  for (const e of events) peak = Math.max(peak, (current += e.d));
  return peak;
}

describe('semaphore workflow (global limits) on the real dev server', () => {
  let temporal: TestTemporal;
  beforeAll(async () => {
    temporal = await connectTestTemporal();
  });
  afterAll(() => temporal.close());

  it('never lets more holders in than it has permits, and serves every waiter', async () => {
    const taskQueue = uniqueName('semaphore');
    const key = uniqueName('limit');
    // Two workers (two connections) on one queue: the limit is held by the semaphore workflow, not by a worker.
    const second = await NativeConnection.connect({ address: devServerAddress() });
    const workers = await Promise.all(
      [temporal.nativeConnection, second].map((connection) =>
        createTestWorkers(connection, { taskQueue, activities: createPermitActivities() }),
      ),
    );
    const run = async () => {
      const handles = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          temporal.client.workflow.start<typeof holdPermit>('holdPermit', {
            taskQueue,
            workflowId: `${key}-holder-${i}`,
            args: [{ key, permits: 2, leaseMs: 60_000, holdMs: 400 }],
          }),
        ),
      );
      const done = await Promise.all(handles.map((h) => h.result()));
      const semaphoreState = await temporal.client.workflow
        .getHandle(semaphoreWorkflowId(scopedLimitKey(taskQueue, key)))
        .query(semaphoreStateQuery);
      return { done, semaphoreState };
    };
    const { done: results, semaphoreState: state } = await workers[0]!.runUntil(workers[1]!.runUntil(run()));
    await second.close();

    expect(results).toHaveLength(6);
    expect(peakOverlap(results)).toBe(2);
    expect(results.filter((r) => r.waitedMs > 300).length).toBeGreaterThanOrEqual(4);
    expect(state).toMatchObject({
      key: scopedLimitKey(taskQueue, key),
      permits: 2,
      holders: [],
      waiting: [],
      granted: 6,
      expiredLeases: 0,
    });
  });

  it('changes its permits at run time through a validated update', async () => {
    const taskQueue = uniqueName('semaphore');
    const key = uniqueName('limit');
    const worker = await createTestWorkers(temporal.nativeConnection, {
      taskQueue,
      activities: createPermitActivities(),
    });
    await worker.runUntil(async () => {
      await temporal.client.workflow.execute<typeof holdPermit>('holdPermit', {
        taskQueue,
        workflowId: `${key}-first`,
        args: [{ key, permits: 1, leaseMs: 60_000, holdMs: 10 }],
      });
      const semaphore = temporal.client.workflow.getHandle(semaphoreWorkflowId(scopedLimitKey(taskQueue, key)));
      await expect(semaphore.executeUpdate(setPermitsUpdate, { args: [-1] })).rejects.toThrow(
        WorkflowUpdateFailedError,
      );
      const state = await semaphore.executeUpdate(setPermitsUpdate, { args: [3] });
      expect(state.permits).toBe(3);
      expect((await semaphore.query(semaphoreStateQuery)).permits).toBe(3);
    });
  });

  it('withdraws a request whose workflow is cancelled while the request is being sent', async () => {
    const taskQueue = uniqueName('withdraw');
    const key = uniqueName('limit');
    const real = createPermitActivities();
    let entered = false;
    let sent = false;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const worker = await createTestWorkers(temporal.nativeConnection, {
      taskQueue,
      activities: {
        async requestPermit(input: Parameters<typeof real.requestPermit>[0]) {
          // The second request is held back until its workflow has been cancelled.
          if (input.request.holderWorkflowId.endsWith('-cancelled')) {
            entered = true;
            await gate;
            await real.requestPermit(input);
            sent = true;
            return;
          }
          return real.requestPermit(input);
        },
      },
    });
    await worker.runUntil(async () => {
      const holder = await temporal.client.workflow.start<typeof holdPermitUntilKilled>('holdPermitUntilKilled', {
        taskQueue,
        workflowId: `${key}-holder`,
        args: [{ key, permits: 1, leaseMs: 7_200_000, holdMs: 0 }],
      });
      await until('the holder to get its permit', async () =>
        (await holder.query(permitHeldQuery)) ? true : undefined,
      );
      const cancelled = await temporal.client.workflow.start<typeof holdPermit>('holdPermit', {
        taskQueue,
        workflowId: `${key}-cancelled`,
        args: [{ key, permits: 1, leaseMs: 3_600_000, holdMs: 60_000 }],
      });
      await until('the request to be on its way', async () => (entered ? true : undefined));
      await cancelled.cancel();
      // Let the request through only once the workflow has acted on the cancellation.
      await until('the workflow to act on the cancellation', async () => {
        const { events } = await cancelled.fetchHistory();
        return events?.some(
          (e) => e.activityTaskCancelRequestedEventAttributes || e.workflowExecutionCanceledEventAttributes,
        )
          ? true
          : undefined;
      });
      open();
      const outcome = await cancelled.result().then(
        () => 'completed',
        (err: unknown) =>
          err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure ? 'cancelled' : String(err),
      );
      expect(outcome).toBe('cancelled');
      await until('the request to reach the semaphore', async () => (sent ? true : undefined));

      // Signals reach the semaphore in order: once a later request is waiting, the cancelled one has been
      // seen too. Without the withdrawal it would wait (for a workflow that is gone) until the holder ends.
      const later = await temporal.client.workflow.start<typeof holdPermit>('holdPermit', {
        taskQueue,
        workflowId: `${key}-later`,
        args: [{ key, permits: 1, leaseMs: 3_600_000, holdMs: 10 }],
      });
      const semaphore = temporal.client.workflow.getHandle(semaphoreWorkflowId(scopedLimitKey(taskQueue, key)));
      const state = await until('the later request to be queued', async () => {
        const s = await semaphore.query(semaphoreStateQuery);
        return s.waiting.length > 0 ? s : undefined;
      });
      expect(state.holders.map((h) => h.holderWorkflowId)).toEqual([`${key}-holder`]);
      expect(state.waiting.map((w) => w.holderWorkflowId)).toEqual([`${key}-later`]);
      await later.terminate('test done');
      await holder.terminate('test done');
    });
  });
});
