import { closeEarlierLabRuns, describeClosed, EARLIER_RUN_REASON } from '../../../lab/earlier-runs';
import { connectTestTemporal, uniqueName, type TestTemporal } from '../../helpers/temporal';

/**
 * The lab keeps Temporal's history across runs but starts its simulators afresh: what an earlier run
 * left running is terminated, with its reason, before the new run's worker starts (an earlier run's
 * `semaphore-vm-start`, from an older ferry, took the new run's permit requests and never answered).
 * Here on the shared test server, narrowed to this test's task queues.
 */
describe('the lab closes what an earlier lab run left running', () => {
  jest.setTimeout(60_000);
  let temporal: TestTemporal;
  beforeAll(async () => {
    temporal = await connectTestTemporal();
  });
  afterAll(async () => {
    await temporal?.close();
  });

  async function listed(query: string, count: number): Promise<void> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      let n = 0;
      for await (const _ of temporal.client.workflow.list({ query })) n++;
      if (n >= count) return;
      if (Date.now() > deadline) throw new Error(`visibility shows ${n} of ${count} for ${query}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  it('terminates every running workflow with the reason, and leaves others alone', async () => {
    const earlier = uniqueName('earlier');
    const other = uniqueName('other');
    // Started without a worker: open, as an earlier lab run's semaphores and waves are after it stopped.
    const start = (taskQueue: string, workflowId: string) =>
      temporal.client.workflow.start('semaphore', { taskQueue, workflowId, args: [] });
    const left = [await start(earlier, `semaphore-vm-start-${earlier}`), await start(earlier, `wave-lab-${earlier}`)];
    const untouched = await start(other, `semaphore-vm-start-${other}`);
    await listed(`ExecutionStatus="Running" AND TaskQueue="${earlier}"`, 2);

    const closed = await closeEarlierLabRuns(temporal.client, `TaskQueue="${earlier}"`);
    expect(closed.sort()).toEqual(left.map((h) => h.workflowId).sort());
    for (const h of left) expect((await h.describe()).status.name).toBe('TERMINATED');
    const history = await left[0]!.fetchHistory();
    const terminated = history.events?.find((e) => e.workflowExecutionTerminatedEventAttributes);
    expect(terminated?.workflowExecutionTerminatedEventAttributes?.reason).toBe(EARLIER_RUN_REASON);
    expect((await untouched.describe()).status.name).toBe('RUNNING');
    await untouched.terminate('test over');

    // A second run finds nothing left.
    expect(await closeEarlierLabRuns(temporal.client, `TaskQueue="${earlier}"`)).toEqual([]);
    expect(describeClosed([])).toBeUndefined();
    expect(describeClosed(closed)).toMatch(/^lab: terminated 2 workflow\(s\) an earlier lab run left running/);
    expect(describeClosed(Array.from({ length: 8 }, (_, i) => `w${i}`))).toMatch(/w5 and 2 more$/);
  });
});
