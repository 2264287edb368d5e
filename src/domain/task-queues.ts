/**
 * Task queues. Workflows and light API calls run on the main queue (`ferry` unless configured);
 * heavy activities run on queues named after it (`ferry-vmotion`, `ferry-import`, `ferry-sdn`,
 * `ferry-convert`: guest conversion, on workers that mount the migration datastore and have virt-v2v;
 * `ferry-datastore`: the quick file operations on that datastore — overlays made and dropped — kept off the
 * convert queue so that a VM's cutover never waits for a slot another VM's conversion holds) so the
 * workers serving them can be placed and sized apart from the API-call workers.
 */
export const DEFAULT_TASK_QUEUE = 'ferry';

export type HeavyWork = 'vmotion' | 'import' | 'sdn' | 'convert' | 'datastore';
export type QueueRole = 'main' | 'coordination' | HeavyWork;
export const QUEUE_ROLES: readonly QueueRole[] = [
  'main',
  'coordination',
  'vmotion',
  'import',
  'sdn',
  'convert',
  'datastore',
];

const COORDINATION_SUFFIX = '-coordination';

/**
 * The queue of the coordination workflows (waves, semaphores, the VMID allocator, provisionPlanned):
 * `ferry` → `ferry-coordination`, served by its own Worker (own task slots and cache), so a wave's
 * tasks and queries never wait behind its 1,000 VM workflows' tasks.
 */
export function coordinationQueue(mainQueue: string): string {
  return `${mainQueue}${COORDINATION_SUFFIX}`;
}

/**
 * The main queue a workflow belongs to, from the queue it runs on: a coordination workflow's children,
 * heavy queues and semaphore keys derive from the main queue, never from `ferry-coordination`. Runs
 * started on the main queue (before the coordination queue existed) get their own queue back.
 */
export function mainQueueOf(taskQueue: string): string {
  return taskQueue.endsWith(COORDINATION_SUFFIX) ? taskQueue.slice(0, -COORDINATION_SUFFIX.length) : taskQueue;
}

/**
 * The queue for heavy work next to a main queue: `ferry` → `ferry-vmotion`, `ferry-import`,
 * `ferry-sdn`. Workflows derive it from the queue they run on, so a second deployment (or a test) on
 * its own main queue gets its own heavy queues.
 */
export function heavyQueue(mainQueue: string, work: HeavyWork): string {
  return `${mainQueue}-${work}`;
}

export function queueName(mainQueue: string, role: QueueRole): string {
  if (role === 'main') return mainQueue;
  return role === 'coordination' ? coordinationQueue(mainQueue) : heavyQueue(mainQueue, role);
}

/**
 * Global limits are per deployment: the semaphore key is scoped by the main queue, except on the
 * default one (so production ids stay `semaphore-vmotion`, …).
 */
export function scopedLimitKey(mainQueue: string, key: string): string {
  return mainQueue === DEFAULT_TASK_QUEUE ? key : `${mainQueue}.${key}`;
}

/**
 * The Temporal priority of ferry's quick work inside a VM's downtime (its cutover's steps from the
 * shutdown to the start): key 1 of 1..5, where 3 is the default. A server that matches by priority hands these tasks out first; a worker that
 * runs one lets its conversions yield to it (src/domain/conversion/yield-to-cutovers.ts).
 */
export const DOWNTIME_PRIORITY = { priorityKey: 1 } as const;

/** Whether an activity with this priority is part of a VM's downtime. */
export function isDowntimeWork(priority: { priorityKey?: number } | undefined): boolean {
  return priority?.priorityKey === DOWNTIME_PRIORITY.priorityKey;
}
