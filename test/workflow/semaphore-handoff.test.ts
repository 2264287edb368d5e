import { temporal as proto } from '@temporalio/proto';
import { createPermitActivities } from '../../activities/permits';
import { semaphoreStateQuery, setPermitsUpdate } from '../../src/domain/messages';
import { semaphoreWorkflowId } from '../../src/domain/permits';
import { scopedLimitKey } from '../../src/domain/task-queues';
import { until } from '../helpers/wait';
import { connectTestTemporal, createTestWorkers, uniqueName, type TestTemporal } from '../helpers/temporal';
import type { holdPermit } from '../workflow-bundle/permit-probes';

const { EventType } = proto.api.enums.v1;
type HistoryEvent = proto.api.history.v1.IHistoryEvent;

const signalsSent = (events: HistoryEvent[], name: string) =>
  events.filter((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName === name);
const signalsReceived = (events: HistoryEvent[], name: string) =>
  events.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === name);

describe('semaphore hand-offs on the real dev server', () => {
  let temporal: TestTemporal;
  beforeAll(async () => {
    temporal = await connectTestTemporal();
  });
  afterAll(() => temporal.close());

  it('grants every freed permit in the workflow task that frees it, and keeps one lease timer instead of one per loop', async () => {
    const taskQueue = uniqueName('handoff');
    const key = uniqueName('limit');
    const worker = await createTestWorkers(temporal.nativeConnection, {
      taskQueue,
      activities: createPermitActivities(),
    });
    const semaphore = temporal.client.workflow.getHandle(semaphoreWorkflowId(scopedLimitKey(taskQueue, key)));
    await worker.runUntil(async () => {
      // No permits at first: three wait; then three permits at once.
      const holders = await Promise.all(
        [0, 1, 2, 3, 4].map((i) =>
          temporal.client.workflow.start<typeof holdPermit>('holdPermit', {
            taskQueue,
            workflowId: `${key}-${i}`,
            args: [{ key, permits: 0, leaseMs: 60_000, holdMs: 300 }],
          }),
        ),
      );
      await until('five waiting', async () =>
        (await semaphore.query(semaphoreStateQuery)).waiting.length === 5 ? true : undefined,
      );
      await semaphore.executeUpdate(setPermitsUpdate, { args: [3] });
      await Promise.all(holders.map((h) => h.result()));
      expect(await semaphore.query(semaphoreStateQuery)).toMatchObject({ holders: [], waiting: [], granted: 5 });
    });
    const events = (await semaphore.fetchHistory()).events ?? [];
    const grants = signalsSent(events, 'permitGranted');
    // The last two were handed over by the holders before them (transferPermit), or granted here if
    // a holder without a successor released first (then a later transfer to it frees the permit).
    expect(grants.length + signalsReceived(events, 'transferPermit').length).toBeGreaterThanOrEqual(5);
    const taskOf = (e: (typeof events)[number]) =>
      Number(e.signalExternalWorkflowExecutionInitiatedEventAttributes!.workflowTaskCompletedEventId);
    // The first three together, in the task that ran the update.
    expect(new Set(grants.slice(0, 3).map(taskOf)).size).toBe(1);
    expect(events.filter((e) => e.eventType === EventType.EVENT_TYPE_TIMER_CANCELED)).toHaveLength(0);
    expect(events.filter((e) => e.eventType === EventType.EVENT_TYPE_TIMER_STARTED).length).toBeLessThanOrEqual(2);
  });
  it('hands a freed permit straight to the next waiter: granted by the holder before it, not by the semaphore, and never two at once', async () => {
    const taskQueue = uniqueName('transfer');
    const key = uniqueName('limit');
    const worker = await createTestWorkers(temporal.nativeConnection, {
      taskQueue,
      activities: createPermitActivities(),
    });
    const semaphore = temporal.client.workflow.getHandle(semaphoreWorkflowId(scopedLimitKey(taskQueue, key)));
    const start = (i: number) =>
      temporal.client.workflow.start<typeof holdPermit>('holdPermit', {
        taskQueue,
        workflowId: `${key}-${i}`,
        args: [{ key, permits: 1, leaseMs: 60_000, holdMs: 1500 }],
      });
    const results = await worker.runUntil(async () => {
      const first = await start(0);
      await until('the first holds', async () =>
        (await semaphore.query(semaphoreStateQuery)).holders.length === 1 ? true : undefined,
      );
      const rest = [await start(1), await start(2)];
      const done = await Promise.all([first, ...rest].map((h) => h.result()));
      expect(await semaphore.query(semaphoreStateQuery)).toMatchObject({ holders: [], waiting: [], granted: 3 });
      return done;
    });
    // One at a time: each was granted no earlier than the one before it released (the two waiters
    // may have asked in either order).
    const byGrant = [...results].sort((a, b) => a.grantedAt - b.grantedAt);
    expect(byGrant[1]!.grantedAt).toBeGreaterThanOrEqual(byGrant[0]!.releasedAt);
    expect(byGrant[2]!.grantedAt).toBeGreaterThanOrEqual(byGrant[1]!.releasedAt);
    const semaphoreEvents = (await semaphore.fetchHistory()).events ?? [];
    expect(signalsSent(semaphoreEvents, 'permitGranted')).toHaveLength(1);
    expect(signalsSent(semaphoreEvents, 'permitSuccessor')).toHaveLength(2);
    expect(signalsReceived(semaphoreEvents, 'transferPermit')).toHaveLength(2);
    expect(signalsReceived(semaphoreEvents, 'releasePermit')).toHaveLength(1);
    const firstEvents = (await temporal.client.workflow.getHandle(`${key}-0`).fetchHistory()).events ?? [];
    const handedTo = signalsSent(firstEvents, 'permitGranted').map(
      (e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes!.workflowExecution!.workflowId,
    );
    expect(handedTo).toHaveLength(1);
    expect([`${key}-1`, `${key}-2`]).toContain(handedTo[0]);
  });
});
