import { scopedLimitKey } from '../../src/domain/task-queues';
import { createPermitActivities } from '../../activities/permits';
import { semaphoreWorkflowId } from '../../src/domain/permits';
import { semaphoreStateQuery } from '../../src/domain/messages';
import { permitHeldQuery, type holdPermit, type holdPermitUntilKilled } from '../workflow-bundle/permit-probes';
import { until } from '../helpers/wait';
import { connectTestTemporal, createTestWorkers, uniqueName, type TestTemporal } from '../helpers/temporal';

/**
 * Leases on the real dev server, in seconds instead of hours (the semaphore's rules do not depend on the
 * length). These ran on the Java time-skipping server until it stopped advancing time in one run of ~16
 * under load (every workflow idle on a timer, server time moving in real time: a time-skipping lock
 * it never gave back), which left the test hanging. A lease is several times longer than a workflow
 * task takes on a loaded machine, so a holder that renews in time never loses it by accident.
 */
const LEASE_MS = 6_000;

describe('semaphore leases on the real dev server', () => {
  jest.setTimeout(120_000);
  let temporal: TestTemporal;
  beforeAll(async () => {
    temporal = await connectTestTemporal();
  });
  afterAll(() => temporal?.close());

  const permitWorkers = (taskQueue: string) =>
    createTestWorkers(temporal.nativeConnection, { taskQueue, activities: createPermitActivities() });

  it('takes the permit back from a vanished holder when its lease runs out, and grants it to the next', async () => {
    const taskQueue = uniqueName('lease');
    const key = uniqueName('limit');
    const client = temporal.client;
    const workers = await permitWorkers(taskQueue);
    await workers.runUntil(async () => {
      const vanishing = await client.workflow.start<typeof holdPermitUntilKilled>('holdPermitUntilKilled', {
        taskQueue,
        workflowId: `${key}-vanishing`,
        args: [{ key, permits: 1, leaseMs: LEASE_MS, holdMs: 0 }],
      });
      const semaphore = client.workflow.getHandle(semaphoreWorkflowId(scopedLimitKey(taskQueue, key)));
      await until('the first holder to have the permit', async () =>
        (await vanishing.query(permitHeldQuery)) ? true : undefined,
      );
      const [first] = (await semaphore.query(semaphoreStateQuery)).holders;
      await vanishing.terminate('simulated crash: the holder never releases');

      const next = await client.workflow.execute<typeof holdPermit>('holdPermit', {
        taskQueue,
        workflowId: `${key}-next`,
        args: [{ key, permits: 1, leaseMs: LEASE_MS, holdMs: 100 }],
      });

      // Granted once the vanished holder's lease ran out, not before, and not much later.
      expect(next.grantedAt - first!.grantedAt).toBeGreaterThanOrEqual(LEASE_MS);
      expect(next.grantedAt - first!.grantedAt).toBeLessThan(LEASE_MS + 30_000);
      const state = await semaphore.query(semaphoreStateQuery);
      expect(state).toMatchObject({ expiredLeases: 1, granted: 2, holders: [], waiting: [] });
    });
  });

  it('keeps renewing the lease of a holder that still works, and hands the permit on when it ends', async () => {
    const taskQueue = uniqueName('renew');
    const key = uniqueName('limit');
    const client = temporal.client;
    const holdMs = 3 * LEASE_MS;
    const workers = await permitWorkers(taskQueue);
    await workers.runUntil(async () => {
      // Holds for three leases: only renewals keep the permit.
      const holder = await client.workflow.start<typeof holdPermit>('holdPermit', {
        taskQueue,
        workflowId: `${key}-long`,
        args: [{ key, permits: 1, leaseMs: LEASE_MS, holdMs }],
      });
      await until('the holder to have the permit', async () =>
        (await holder.query(permitHeldQuery)) ? true : undefined,
      );
      const next = await client.workflow.execute<typeof holdPermit>('holdPermit', {
        taskQueue,
        workflowId: `${key}-next`,
        args: [{ key, permits: 1, leaseMs: LEASE_MS, holdMs: 100 }],
      });
      const first = await holder.result();

      expect(first.releasedAt - first.grantedAt).toBeGreaterThanOrEqual(holdMs);
      expect(next.grantedAt).toBeGreaterThanOrEqual(first.releasedAt);
      const state = await client.workflow
        .getHandle(semaphoreWorkflowId(scopedLimitKey(taskQueue, key)))
        .query(semaphoreStateQuery);
      expect(state).toMatchObject({ expiredLeases: 0, granted: 2, holders: [], waiting: [] });
      // The holder renewed its lease (every third of it) rather than holding one long lease.
      const { events } = await holder.fetchHistory();
      const renewals = (events ?? []).filter(
        (e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName === 'renewPermit',
      );
      expect(renewals.length).toBeGreaterThanOrEqual(Math.floor(holdMs / (LEASE_MS / 3)) - 1);
    });
  });
});
