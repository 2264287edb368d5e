import { existsSync } from 'node:fs';
import path from 'node:path';
import {
  bundleWorkflowCode,
  Runtime,
  type NativeConnection,
  type Worker,
  type WorkerOptions,
  type WorkflowBundleOption,
} from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';
import type { FerryConfig } from '../src/config';
import {
  DEFAULT_COORDINATION_CACHED_WORKFLOWS,
  DEFAULT_COORDINATION_WORKFLOW_TASKS,
  servedQueues,
} from '../src/config/temporal';
import { queueName } from '../src/domain/task-queues';
import { REPO_ROOT, WORKFLOWS_PATH } from '../src/paths';
import { workerClassSharingOneWorkflowThread } from './shared-workflow-thread';
import { sharedWorkflowModules } from './workflow-bundle';

export interface WorkerSetup {
  config: FerryConfig;
  connection: NativeConnection;
  deps: ActivityDeps;
  /**
   * A prebuilt bundle (scripts/build-bundle.ts, as the Dockerfile runs it; FERRY_WORKFLOW_BUNDLE names one
   * for worker.ts), else the workflows are bundled at start (webpack in the worker: ~100 MiB of RSS it never
   * gives back).
   */
  workflowBundlePath?: string;
  /** Extra options for every worker (tests pass a tiny shutdown grace, say). */
  overrides?: Partial<WorkerOptions>;
}

/** The default prebuilt bundle location, used by the container image. */
export const PREBUILT_BUNDLE = path.join(REPO_ROOT, 'dist', 'workflow-bundle.js');
/** Only compiled code (dist/) takes the bundle built beside it: run from sources, a bundle there may be stale. */
const RUNS_COMPILED = path.relative(REPO_ROOT, __dirname).split(path.sep)[0] === 'dist';

/**
 * One Worker per configured task queue. Workflows run on the main queue and on the coordination queue
 * (waves, semaphores, the VMID allocator, provisionPlanned: their own Worker, with its own task slots and
 * cache, so they never wait behind VM workflows' tasks); the main Worker still serves every workflow type
 * (runs started there before the coordination queue existed). Every queue serves the activities, and the
 * workflow picks the queue per call, so heavy work lands on its own queue. The workflow Workers share one
 * workflow thread (worker/shared-workflow-thread.ts).
 */
export async function createWorkers(setup: WorkerSetup): Promise<Worker[]> {
  const { config, connection, deps } = setup;
  const activities = createActivities(deps);
  const queues = servedQueues(config);
  const runsWorkflows = queues.some(([role]) => role === 'main' || role === 'coordination');
  const workflowBundle = runsWorkflows ? await workflowBundleOf(setup) : undefined;
  const WorkerClass = workerClassSharingOneWorkflowThread({ stackTraces: config.worker.workflowStackTraces });
  const workflows = (cache: {
    maxCachedWorkflows: number;
    maxConcurrentWorkflowTaskExecutions: number;
  }): Partial<WorkerOptions> => ({
    workflowBundle,
    ...cache,
    // Taken by the SDK (its WorkerOptions type lists it only among the compiled defaults).
    ...({ isolateExecutionTimeout: config.worker.isolateExecutionTimeout } as Partial<WorkerOptions>),
  });
  const workers: Worker[] = [];
  for (const [role, settings] of queues) {
    const taskQueue = queueName(config.worker.taskQueue, role);
    const workflowSource: Partial<WorkerOptions> =
      role === 'main'
        ? workflows({
            maxCachedWorkflows: config.worker.maxCachedWorkflows,
            maxConcurrentWorkflowTaskExecutions: config.worker.maxConcurrentWorkflowTaskExecutions,
          })
        : role === 'coordination'
          ? workflows({
              maxCachedWorkflows: settings.maxCachedWorkflows ?? DEFAULT_COORDINATION_CACHED_WORKFLOWS,
              maxConcurrentWorkflowTaskExecutions:
                settings.maxConcurrentWorkflowTaskExecutions ?? DEFAULT_COORDINATION_WORKFLOW_TASKS,
            })
          : {};
    workers.push(
      await WorkerClass.create({
        connection,
        namespace: config.temporal.namespace,
        taskQueue,
        activities,
        ...workflowSource,
        maxConcurrentActivityTaskExecutions: settings.maxConcurrentActivities,
        maxTaskQueueActivitiesPerSecond: settings.maxTaskQueueActivitiesPerSecond,
        shutdownGraceTime: config.worker.shutdownGraceTime,
        ...setup.overrides,
      }),
    );
  }
  if (workers.length === 0) throw new Error('worker.taskQueues is empty: this worker would serve nothing');
  return workers;
}

/** The prebuilt bundle, else the workflows bundled now, once for every Worker (they share one workflow thread). */
async function workflowBundleOf(setup: WorkerSetup): Promise<WorkflowBundleOption> {
  const prebuilt =
    setup.workflowBundlePath ??
    (process.env.FERRY_WORKFLOW_BUNDLE || undefined) ??
    (RUNS_COMPILED && existsSync(PREBUILT_BUNDLE) ? PREBUILT_BUNDLE : undefined);
  if (prebuilt) return { codePath: prebuilt };
  return await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    preloadModules: sharedWorkflowModules(),
    logger: Runtime.instance().logger,
  });
}

/** What a worker run ends with when one of its workers failed; the first failure is the cause. */
export class WorkerFailedError extends Error {
  constructor(
    readonly taskQueue: string,
    cause: unknown,
  ) {
    super(`the worker for task queue ${taskQueue} failed: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = 'WorkerFailedError';
  }
}

type RunnableWorker = Pick<Worker, 'run' | 'shutdown' | 'getState'> & { options: { taskQueue: string } };

/**
 * Runs workers until they are shut down (SIGINT/SIGTERM by default), then resolves. When one worker
 * fails, the others are shut down at once (a process that serves only some of its queues would look
 * healthy while, say, imports pile up) and the run rejects with the first failure.
 */
export async function runWorkers(workers: readonly RunnableWorker[]): Promise<void> {
  let failure: WorkerFailedError | undefined;
  const runs = workers.map((worker) =>
    worker.run().catch((err: unknown) => {
      if (failure) return;
      failure = new WorkerFailedError(worker.options.taskQueue, err);
      for (const other of workers) {
        if (other !== worker && other.getState() === 'RUNNING') other.shutdown();
      }
    }),
  );
  await Promise.all(runs);
  if (failure) throw failure;
}
