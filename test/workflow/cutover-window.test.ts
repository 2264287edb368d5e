import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { cutoverWindowProbe } from '../workflow-bundle/window-probe';
import { createTimeSkippingEnv, uniqueName, workflowBundlePath } from '../helpers/temporal';

const NIGHT = { start: '22:00', end: '02:00', timeZone: 'Europe/Berlin' };
const at = (iso: string) => Date.parse(iso);

/**
 * Approved cutovers wait on durable timers for their window, under the time-skipping test server: days
 * pass in a moment, across the spring-forward night of 28 March 2027 in Berlin (02:00 → 03:00).
 */
describe('cutover windows under time skipping', () => {
  jest.setTimeout(120_000);
  let env: TestWorkflowEnvironment;
  beforeAll(async () => {
    env = await createTimeSkippingEnv();
  });
  afterAll(() => env?.teardown());

  it('starts when the window opens, at once inside it, and after its end at the next opening (across a DST change)', async () => {
    const taskQueue = uniqueName('window');
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: { codePath: workflowBundlePath() },
    });
    const notBefore = [
      at('2027-03-27T12:00:00Z'), // Saturday noon: waits for 22:00 CET (21:00Z)
      at('2027-03-28T00:30:00Z'), // 01:30 CET, inside that night's window: at once
      at('2027-03-28T01:30:00Z'), // 03:30 CEST, after the window closed at 02:00 = 03:00 CEST: the next night, 22:00 CEST (20:00Z)
    ];
    const result = await worker.runUntil(
      env.client.workflow.execute<typeof cutoverWindowProbe>('cutoverWindowProbe', {
        taskQueue,
        workflowId: uniqueName('window-probe'),
        args: [{ window: NIGHT, notBefore }],
      }),
    );
    expect(result.startedAt).toBeLessThan(notBefore[0]!); // the probe really waited months of workflow time
    const expected = [at('2027-03-27T21:00:00Z'), at('2027-03-28T00:30:00Z'), at('2027-03-28T20:00:00Z')];
    expect(result.told).toEqual(expected);
    result.woke.forEach((woke, i) => {
      // A timer fires at its instant; the workflow task that runs after it may carry a little later time.
      expect(woke).toBeGreaterThanOrEqual(expected[i]!);
      expect(woke - expected[i]!).toBeLessThan(5_000);
    });
  });
});
