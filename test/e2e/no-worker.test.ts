import type { Client } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { FerryKind } from '../../src/domain/search-attributes';
import { spawnFerry } from '../helpers/processes';
import {
  connectTestTemporal,
  createTestWorker,
  devServerAddress,
  uniqueName,
  type TestTemporal,
} from '../helpers/temporal';

/**
 * A command that waits on a worker (a status query, an update, a workflow's result) says within
 * seconds when no worker polls the workflow's task queue, and goes on waiting only with --wait.
 */
describe('ferry with no worker on the task queue', () => {
  jest.setTimeout(120_000);
  let temporal: TestTemporal;
  let client: Client;
  const idleQueue = uniqueName('no-worker');
  const workflowId = uniqueName('vmid-idle');
  const env = { FERRY_CONFIG: '', TEMPORAL_ADDRESS: devServerAddress(), FERRY_TASK_QUEUE: idleQueue };

  async function ferry(...args: string[]) {
    const started = Date.now();
    const run = spawnFerry(args, env);
    const code = await run.exited;
    return { code, output: run.output(), seconds: (Date.now() - started) / 1000 };
  }

  beforeAll(async () => {
    temporal = await connectTestTemporal();
    client = temporal.client;
    await client.workflow.start('vmidAllocator', {
      taskQueue: idleQueue,
      workflowId,
      args: [{}],
      typedSearchAttributes: [{ key: FerryKind, value: 'vmid-allocator' }],
    });
  });
  afterAll(async () => {
    await client?.workflow
      .getHandle(workflowId)
      .terminate('test done')
      .catch(() => undefined);
    await temporal?.close();
  });

  it('status says so and exits 1 instead of hanging', async () => {
    const { code, output, seconds } = await ferry('status', workflowId);
    expect(output).toContain(`${workflowId} (vmidAllocator): RUNNING`);
    expect(output).toContain(`no worker polls task queue "${idleQueue}"`);
    expect(output).toContain('--wait');
    expect(code).toBe(1);
    expect(seconds).toBeLessThan(30);
  });

  it('status --wait says it waits, and waits', async () => {
    const run = spawnFerry(['status', workflowId, '--wait'], env);
    await run.waitFor(/no worker polls task queue .*waiting for one \(--wait\)/, 30_000);
    await new Promise((r) => setTimeout(r, 2000));
    expect(run.child.exitCode).toBeNull();
    run.child.kill('SIGTERM');
    await run.exited;
  });

  it('approve and doctor refuse at once (exit 1), naming the queue; doctor starts nothing', async () => {
    const approve = await ferry('approve', workflowId, '--by', 'alice', '--reason', 'test');
    // A vmidAllocator takes no approval: the refusal comes before the worker check. A migrateVm would wait.
    expect(approve.code).not.toBe(0);
    const doctor = await ferry('doctor');
    expect(doctor.output).toContain(`no worker polls task queue "${idleQueue}"`);
    expect(doctor.code).toBe(1);
    expect(doctor.seconds).toBeLessThan(30);
    let started = 0;
    for await (const _ of client.workflow.list({ query: `TaskQueue = '${idleQueue}' AND WorkflowType = 'doctor'` }))
      started++;
    expect(started).toBe(0);
  });

  it('a decision to a migration with no worker is refused at once, not left waiting', async () => {
    const vmWorkflow = uniqueName('migrate-idle');
    await client.workflow.start('migrateVm', {
      taskQueue: idleQueue,
      workflowId: vmWorkflow,
      args: [{}],
      typedSearchAttributes: [{ key: FerryKind, value: 'migrate' }],
    });
    try {
      const approve = await ferry('approve', vmWorkflow, '--by', 'alice', '--reason', 'test');
      expect(approve.output).toContain(`no worker polls task queue "${idleQueue}"`);
      expect(approve.code).toBe(1);
      expect(approve.seconds).toBeLessThan(30);
    } finally {
      await client.workflow.getHandle(vmWorkflow).terminate('test done');
    }
  });

  it('with a worker polling, status answers (exit 0)', async () => {
    const queue = uniqueName('with-worker');
    const id = uniqueName('vmid-served');
    const worker: Worker = await createTestWorker(temporal.nativeConnection, { taskQueue: queue, activities: {} });
    await worker.runUntil(async () => {
      await client.workflow.start('vmidAllocator', {
        taskQueue: queue,
        workflowId: id,
        args: [{}],
        typedSearchAttributes: [{ key: FerryKind, value: 'vmid-allocator' }],
      });
      const { code, output } = await ferry('status', id);
      expect(output).not.toContain('no worker polls');
      expect(code).toBe(0);
      await client.workflow.getHandle(id).terminate('test done');
    });
  });
});
