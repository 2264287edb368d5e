import { randomUUID } from 'node:crypto';
import { coordinationQueue } from '../../src/domain/task-queues';
import { Client, Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { NativeConnection, Worker, Runtime, DefaultLogger, type WorkerOptions } from '@temporalio/worker';
import { toolPath } from '../../lab/tools';
import { searchAttributeIndexedTypes } from '../../src/temporal/search-attributes';

let runtimeInstalled = false;
function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });
  } catch {
    // already installed by an earlier helper in this module registry
  }
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests through jest (test/harness/global-setup.ts)`);
  return value;
}

/** Address of the run-wide dev server started by the global setup. */
export const devServerAddress = (): string => required('FERRY_TEST_TEMPORAL_ADDRESS');
export const workflowBundlePath = (): string => required('FERRY_TEST_WORKFLOW_BUNDLE');

export function uniqueName(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

export interface TestTemporal {
  client: Client;
  nativeConnection: NativeConnection;
  close(): Promise<void>;
}

/** A client and a worker connection to the shared dev server. Shut workers down before `close()`. */
export function connectTestTemporal(): Promise<TestTemporal> {
  return connectTemporalAt(devServerAddress());
}

/** A client and a worker connection to the Temporal server at `address` (a test's own dev server). */
export async function connectTemporalAt(address: string): Promise<TestTemporal> {
  quietRuntime();
  const connection = await Connection.connect({ address });
  const nativeConnection = await NativeConnection.connect({ address });
  return {
    client: new Client({ connection }),
    nativeConnection,
    async close() {
      await connection.close();
      await nativeConnection.close();
    },
  };
}

/** A worker on the prebuilt test bundle; activities and queue come from the test. */
export function createTestWorker(
  connection: NativeConnection,
  options: Pick<WorkerOptions, 'taskQueue'> & Partial<WorkerOptions>,
): Promise<Worker> {
  quietRuntime();
  return Worker.create({
    connection,
    workflowBundle: { codePath: workflowBundlePath() },
    shutdownGraceTime: '1s',
    ...options,
  });
}

/**
 * A test worker on `taskQueue` and another on its coordination queue (where the semaphores, the VMID
 * allocator, waves and provisionPlanned run), on the same options; `runUntil` runs both.
 */
export async function createTestWorkers(
  connection: NativeConnection,
  options: Pick<WorkerOptions, 'taskQueue'> & Partial<WorkerOptions>,
): Promise<{ runUntil<T>(fnOrPromise: Promise<T> | (() => Promise<T>)): Promise<T> }> {
  const main = await createTestWorker(connection, options);
  const coordination = await createTestWorker(connection, {
    ...options,
    taskQueue: coordinationQueue(options.taskQueue),
  });
  return { runUntil: (fnOrPromise) => main.runUntil(() => coordination.runUntil(fnOrPromise)) };
}

/** Java time-skipping test server, from the binary scripts/setup.sh installed (never downloaded). */
export async function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: toolPath('temporal-test-server') } },
  });
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: searchAttributeIndexedTypes(),
  });
  return env;
}
