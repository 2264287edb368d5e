import { z } from 'zod';
import { duration } from './common';
import { TASK_QUEUES } from '../domain/task-queues';

export const temporalSection = z
  .object({
    /** host:port of the Temporal frontend. */
    address: z.string().min(1).default('127.0.0.1:7233'),
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
      .refine((t) => Boolean(t.clientCertFile) === Boolean(t.clientKeyFile), {
        message: 'mTLS needs both clientCertFile and clientKeyFile',
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
  })
  .strict();

const defaultQueues: Record<(typeof TASK_QUEUES)[keyof typeof TASK_QUEUES], { maxConcurrentActivities: number }> = {
  ferry: { maxConcurrentActivities: 20 },
  'ferry-vmotion': { maxConcurrentActivities: 4 },
  'ferry-import': { maxConcurrentActivities: 4 },
  'ferry-sdn': { maxConcurrentActivities: 1 },
};

export const workerSection = z
  .object({
    /** Task queues this worker serves, with their concurrency. Omit a queue to leave it to other workers. */
    taskQueues: z
      .partialRecord(z.enum(Object.values(TASK_QUEUES) as [string, ...string[]]), queueSettings)
      .default(defaultQueues),
    /** How long in-flight activities get to finish after SIGINT/SIGTERM before they are cancelled. */
    shutdownGraceTime: duration.default('30s'),
  })
  .strict();
