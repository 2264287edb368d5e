import { temporal as proto } from '@temporalio/proto';
import { createPermitActivities } from '../../activities/permits';
import { semaphoreStateQuery, setPermitsUpdate } from '../../src/domain/messages';
import { semaphoreWorkflowId } from '../../src/domain/permits';
import { scopedLimitKey } from '../../src/domain/task-queues';
import { until } from '../helpers/wait';
import { connectTestTemporal, createTestWorkers, uniqueName, type TestTemporal } from '../helpers/temporal';
import type { holdPermit } from '../workflow-bundle/permit-probes';

const { EventType } = proto.api.enums.v1;

describe('semaphore hand-offs on the real dev server', () => {
  let temporal: TestTemporal;
  beforeAll(async () => {
    temporal = await connectTestTemporal();
  });
  afterAll(() => temporal.close());

  it('grants every freed permit in the workflow task that frees it, and keeps one lease timer instead of one per loop', async () => {
    const taskQueue = uniqueName('handoff');
    const key = uniqueName('limit');
    const worker = await createTestWorkers(temporal.nativeConnection, { taskQueue, activities: createPermitActivities() });
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
      await until('five waiting', async () => ((await semaphore.query(semaphoreStateQuery)).waiting.length === 5 ? true : undefined));
      await semaphore.executeUpdate(setPermitsUpdate, { args: [3] });
      await Promise.all(holders.map((h) => h.result()));
      expect(await semaphore.query(semaphoreStateQuery)).toMatchObject({ holders: [], waiting: [], granted: 5 });
    });
    const events = (await semaphore.fetchHistory()).events ?? [];
    const grants = events.filter((e) => e.eventType === EventType.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED);
    expect(grants).toHaveLength(5);
    const taskOf = (e: (typeof events)[number]) => Number(e.signalExternalWorkflowExecutionInitiatedEventAttributes!.workflowTaskCompletedEventId);
    // The first three together, in the task that ran the update.
    expect(new Set(grants.slice(0, 3).map(taskOf)).size).toBe(1);
    expect(events.filter((e) => e.eventType === EventType.EVENT_TYPE_TIMER_CANCELED)).toHaveLength(0);
    expect(events.filter((e) => e.eventType === EventType.EVENT_TYPE_TIMER_STARTED).length).toBeLessThanOrEqual(2);
  });
});
