import { z } from 'zod';
import { ALWAYS, duration } from './common';
import { DEFAULT_TASK_QUEUE, QUEUE_ROLES, type QueueRole } from '../domain/task-queues';

export const temporalSection = z
  .object({
    /** host:port of the Temporal frontend. */
    address: z
      .string()
      .regex(/^[^@/\s]+$/, 'host:port, without scheme or credentials (TEMPORAL_API_KEY or mTLS authenticate)')
      .default('127.0.0.1:7233'),
    namespace: z.string().min(1).default('default'),
    /** Temporal Cloud / self-hosted API key; from TEMPORAL_API_KEY only. */
    apiKey: z.string().min(1).optional(),
    tls: z
      .object({
        enabled: z.boolean().default(false),
        serverCaFile: z.string().min(1).optional(),
        clientCertFile: z.string().min(1).optional(),
        clientKeyFile: z.string().min(1).optional(),
        serverName: z.string().min(1).optional(),
      })
      .strict()
      .refine((t) => typeof t !== 'object' || t === null || Boolean(t.clientCertFile) === Boolean(t.clientKeyFile), {
        message: 'mTLS needs both clientCertFile and clientKeyFile',
        ...ALWAYS,
      })
      .default({ enabled: false }),
  })
  .strict();

const queueSettings = z
  .object({
    /** Activities this worker process runs at once on the queue. */
    maxConcurrentActivities: z.number().int().min(1),
    /** Server-side cap on activity starts per second for the whole queue (every worker). */
    maxTaskQueueActivitiesPerSecond: z.number().positive().optional(),
    /**
     * Coordination queue only (its Worker runs the waves, semaphores, allocator and provisionPlanned):
     * its own workflow cache and task slots. The main queue takes `worker.maxCachedWorkflows` and
     * `worker.maxConcurrentWorkflowTaskExecutions`; heavy queues run no workflows.
     */
    maxCachedWorkflows: z.number().int().min(0).max(100_000).optional(),
    maxConcurrentWorkflowTaskExecutions: z.number().int().min(2).max(1_000).optional(),
  })
  .strict();

/** The coordination queue's activities: the waves' reads (discovery, placement, visibility watches) and permit requests. */
const DEFAULT_COORDINATION_QUEUE_SETTINGS = { maxConcurrentActivities: 10 };
export const DEFAULT_COORDINATION_QUEUE: Readonly<{ maxConcurrentActivities: number }> =
  DEFAULT_COORDINATION_QUEUE_SETTINGS;

const defaultQueues: Record<QueueRole, { maxConcurrentActivities: number }> = {
  main: { maxConcurrentActivities: 20 },
  coordination: DEFAULT_COORDINATION_QUEUE_SETTINGS,
  vmotion: { maxConcurrentActivities: 4 },
  import: { maxConcurrentActivities: 4 },
  sdn: { maxConcurrentActivities: 1 },
  convert: { maxConcurrentActivities: 2 },
  // Seconds each (a qemu-img create or an unlink): never behind a conversion, which holds a convert slot for minutes.
  datastore: { maxConcurrentActivities: 8 },
};

/** The datastore queue's defaults, for a worker that serves `convert` (it mounts the datastore) without listing it. */
const DEFAULT_DATASTORE_QUEUE = defaultQueues.datastore;

/**
 * The active part of a wave: its 50 VM workflows at once by default (the wave and the semaphores are in
 * the coordination Worker's cache). VMs waiting at the gate are evicted and rebuilt from history when
 * they have work. Each cached VM workflow holds ~0.5 MiB: with 1,000 VMs at the gate the worker held
 * 393 MiB at 50 against 415–424 MiB at 100 (docs/benchmarks.md).
 */
export const DEFAULT_MAX_CACHED_WORKFLOWS = 50;
export const DEFAULT_MAX_WORKFLOW_TASKS = 40;
/** The coordination Worker's: a few waves, the semaphores and the allocator stay cached. */
export const DEFAULT_COORDINATION_CACHED_WORKFLOWS = 20;
export const DEFAULT_COORDINATION_WORKFLOW_TASKS = 10;

export const workerSection = z
  .object({
    /** The main queue (workflows, API calls); heavy work goes to `<taskQueue>-vmotion`, `-import`, `-sdn`, `-convert`, `-datastore`. */
    taskQueue: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, dot, dash, underscore')
      .default(DEFAULT_TASK_QUEUE),
    /**
     * The queues this worker serves, by role (main, coordination, vmotion, import, sdn, convert, datastore), with their
     * concurrency. Omit a role to leave it to other workers (e.g. a worker next to the storage serving
     * only `import`); a worker that serves `main` serves `coordination` too (its defaults) unless listed.
     */
    taskQueues: z
      .partialRecord(z.enum(QUEUE_ROLES as [QueueRole, ...QueueRole[]]), queueSettings)
      .default(defaultQueues),
    /** How long in-flight activities get to finish after SIGINT/SIGTERM before they are cancelled. */
    shutdownGraceTime: duration.default('30s'),
    /**
     * Workflows kept in this worker's cache (each costs memory while it waits, e.g. at the cutover gate);
     * an evicted one is rebuilt from its history when it next has work. Bounds worker memory.
     */
    maxCachedWorkflows: z.number().int().min(0).max(100_000).default(DEFAULT_MAX_CACHED_WORKFLOWS),
    /**
     * How long the workflow thread may hold an activation without finishing any before the worker stops
     * it: a workflow that never yields would otherwise hang every workflow of the process. The worker
     * then fails naming that workflow, so it is restarted and its tasks go to other workers. Watched from
     * the main thread (worker/workflow-thread.ts), not by the SDK's watchdog on every call into the
     * sandbox, which costs ~90 µs of CPU a call and crashes Node when it fires (nodejs/node#38503).
     * A large wave's activations take seconds of CPU on a loaded host, hence far more than the SDK's 5 s.
     */
    isolateExecutionTimeout: duration.default('60s'),
    /**
     * Keep a stack for every pending promise of every workflow, for the `__stack_trace` query (the
     * Temporal UI's "Stack Trace" tab), as the SDK does. `false` saves ~20 % of the workflow thread's
     * CPU (bench/workflow-replay.ts: 103 → 82 ms per migrateVm replay), which at the gate of a 1,000-VM wave was lost in the noise of the
     * whole worker's (88 vs 87 ms per VM).
     */
    workflowStackTraces: z.boolean().default(true),
    /** Workflow tasks this worker runs at once (main queue). */
    maxConcurrentWorkflowTaskExecutions: z.number().int().min(2).max(1_000).default(DEFAULT_MAX_WORKFLOW_TASKS),
  })
  .strict();

type QueueSettings = z.infer<typeof queueSettings>;

/**
 * The queues a worker serves: those configured; one that serves `main` serves `coordination` too, and one
 * that serves `convert` serves `datastore` too (both need the migration datastore mounted), unless listed.
 */
export function servedQueues(config: {
  worker: Pick<z.infer<typeof workerSection>, 'taskQueues'>;
}): Array<[QueueRole, QueueSettings]> {
  const queues = config.worker.taskQueues;
  const served = (Object.entries(queues) as Array<[QueueRole, QueueSettings | undefined]>).filter(
    (entry): entry is [QueueRole, QueueSettings] => entry[1] !== undefined,
  );
  if (queues.main && !queues.coordination) served.push(['coordination', DEFAULT_COORDINATION_QUEUE]);
  if (queues.convert && !queues.datastore) served.push(['datastore', DEFAULT_DATASTORE_QUEUE]);
  return served;
}
