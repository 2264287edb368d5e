import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Worker, WorkerOptions } from '@temporalio/worker';
import {
  workerClassSharingOneWorkflowThread,
  type SharedWorkflowCreator,
} from '../../../worker/shared-workflow-thread';
import type { retriedActivity } from '../../workflow-bundle/retry-probe';
import { connectTestTemporal, uniqueName, workflowBundlePath, type TestTemporal } from '../../helpers/temporal';

const activities = { echo: async (input: unknown) => input };

function threadOf(worker: Worker): SharedWorkflowCreator['thread'] {
  return (worker as unknown as { workflowCreator: SharedWorkflowCreator }).workflowCreator.thread;
}

describe('Workers sharing one workflow thread', () => {
  let temporal: TestTemporal;
  beforeAll(async () => {
    temporal = await connectTestTemporal();
  });
  afterAll(() => temporal.close());

  const create = (WorkerClass: typeof Worker, taskQueue: string, codePath = workflowBundlePath()) =>
    WorkerClass.create({
      connection: temporal.nativeConnection,
      taskQueue,
      activities,
      workflowBundle: { codePath },
      shutdownGraceTime: '1s',
    });
  const echo = (taskQueue: string, input: string) =>
    temporal.client.workflow.execute<typeof retriedActivity>('retriedActivity', {
      taskQueue,
      workflowId: uniqueName(taskQueue),
      args: [{ activity: 'echo', input }],
    });

  it('run every Worker its workflows in one thread, which lasts until the last of them stops', async () => {
    const WorkerClass = workerClassSharingOneWorkflowThread();
    const [mainQueue, coordinationQueue] = [uniqueName('main'), uniqueName('coordination')];
    const main = await create(WorkerClass, mainQueue);
    const coordination = await create(WorkerClass, coordinationQueue);
    expect(threadOf(main)).toBeDefined();
    expect(threadOf(coordination)).toBe(threadOf(main));

    const runs = [main.run(), coordination.run()];
    await expect(
      Promise.all([echo(mainQueue, 'on main'), echo(coordinationQueue, 'on coordination')]),
    ).resolves.toEqual(['on main', 'on coordination']);

    main.shutdown();
    await runs[0];
    // The coordination Worker still has the thread: a new workflow there runs to completion.
    await expect(echo(coordinationQueue, 'after main stopped')).resolves.toBe('after main stopped');
    coordination.shutdown();
    await runs[1];
  });

  it.each([
    [true, 'answers the stack trace query with the awaiting code'],
    [false, 'keeps no promise stacks: the stack trace query says they are off'],
  ])('stackTraces %s %s', async (stackTraces) => {
    const WorkerClass = workerClassSharingOneWorkflowThread({ stackTraces });
    const taskQueue = uniqueName('stacks');
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const activityStarted = new Promise<void>((resolve) => (started = resolve));
    const worker = await WorkerClass.create({
      connection: temporal.nativeConnection,
      taskQueue,
      activities: { hold: async () => (started(), await released, 'held') },
      workflowBundle: { codePath: workflowBundlePath() },
      shutdownGraceTime: '1s',
    });
    await worker.runUntil(async () => {
      const handle = await temporal.client.workflow.start<typeof retriedActivity>('retriedActivity', {
        taskQueue,
        workflowId: uniqueName(taskQueue),
        args: [{ activity: 'hold', input: null }],
      });
      await activityStarted;
      // eslint-disable-next-line no-restricted-syntax -- the SDK's built-in query, not one of ferry's messages
      const stack = handle.query<string>('__stack_trace').finally(release);
      if (stackTraces) await expect(stack).resolves.toMatch(/^ +at .*retry-probe\.ts:\d+:\d+/m);
      else await expect(stack).rejects.toThrow('Workflow stack traces are not enabled on this worker');
      await expect(handle.result()).resolves.toBe('held');
    });
  });

  it('stops the workflow thread when a workflow never yields; the Worker fails naming that workflow', async () => {
    const WorkerClass = workerClassSharingOneWorkflowThread();
    const taskQueue = uniqueName('spin');
    const worker = await WorkerClass.create({
      connection: temporal.nativeConnection,
      taskQueue,
      activities,
      workflowBundle: { codePath: workflowBundlePath() },
      shutdownGraceTime: '1s',
      // Taken by the SDK (its WorkerOptions type lists it only among the compiled defaults).
      ...({ isolateExecutionTimeout: '1s' } as Partial<WorkerOptions>),
    });
    const run = worker.run();
    const workflowId = uniqueName(taskQueue);
    const handle = await temporal.client.workflow.start('spinWithoutYielding', { taskQueue, workflowId });
    try {
      await expect(run).rejects.toThrow(
        new RegExp(
          `the workflow thread was stopped: workflow spinWithoutYielding ${workflowId} \\(run ${handle.firstExecutionRunId}\\) ran for \\d+\\.\\d s without yielding \\(worker.isolateExecutionTimeout 1 s\\)`,
        ),
      );
      expect(worker.getState()).toBe('FAILED');
      // The spinning thread is gone, not left burning a core.
      const threads = (threadOf(worker) as unknown as { workerThreadClients: Array<{ workerExited: boolean }> })
        .workerThreadClients;
      expect(threads.map((thread) => thread.workerExited)).toEqual([true]);
    } finally {
      await handle.terminate();
    }
  });

  it('refuses a Worker with another bundle file instead of running that Worker on the first one', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ferry-bundle-'));
    try {
      const other = path.join(dir, 'other-bundle.js');
      copyFileSync(workflowBundlePath(), other);
      const WorkerClass = workerClassSharingOneWorkflowThread();
      const first = await create(WorkerClass, uniqueName('main'));
      await first.runUntil(async () => {
        await expect(create(WorkerClass, uniqueName('coordination'), other)).rejects.toThrow(
          `a shared workflow thread runs one bundle (${workflowBundlePath()}), not also ${other}`,
        );
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
