import { runWorkers, WorkerFailedError } from '../../../worker/create-workers';
import { connectTestTemporal, createTestWorker, uniqueName, type TestTemporal } from '../../helpers/temporal';

/** Stands in for a worker whose run() fails after a while (say, the import queue's poller dies). */
function failingWorker(taskQueue: string, afterMs: number, error: Error) {
  let state: 'RUNNING' | 'FAILED' = 'RUNNING';
  return {
    options: { taskQueue },
    getState: () => state,
    shutdown: () => {
      throw new Error('a failed worker is not shut down again');
    },
    run: () =>
      new Promise<void>((_, reject) =>
        setTimeout(() => {
          state = 'FAILED';
          reject(error);
        }, afterMs),
      ),
  };
}

describe('runWorkers', () => {
  let temporal: TestTemporal;
  beforeAll(async () => {
    temporal = await connectTestTemporal();
  });
  afterAll(() => temporal.close());

  it('shuts the other (real) workers down when one fails, and rejects with that failure', async () => {
    const queues = [uniqueName('main'), uniqueName('vmotion')];
    const real = await Promise.all(
      queues.map((taskQueue) =>
        createTestWorker(temporal.nativeConnection, { taskQueue, activities: { noop: async () => undefined } }),
      ),
    );
    const cause = new Error('poller died');
    const run = runWorkers([...real, failingWorker('ferry-import', 500, cause)]);

    const err = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkerFailedError);
    expect((err as WorkerFailedError).message).toBe('the worker for task queue ferry-import failed: poller died');
    expect((err as WorkerFailedError).cause).toBe(cause);
    expect(real.map((w) => w.getState())).toEqual(['STOPPED', 'STOPPED']);
  });

  it('resolves when every worker stops normally', async () => {
    const worker = await createTestWorker(temporal.nativeConnection, {
      taskQueue: uniqueName('main'),
      activities: { noop: async () => undefined },
    });
    const run = runWorkers([worker]);
    await new Promise((r) => setTimeout(r, 200));
    worker.shutdown();
    await expect(run).resolves.toBeUndefined();
  });
});
