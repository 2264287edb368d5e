/**
 * Task queues. Workflows and light API calls run on the main queue (`ferry` unless configured);
 * heavy activities run on queues named after it (`ferry-vmotion`, `ferry-import`, `ferry-sdn`) so the
 * workers serving them can be placed and sized apart from the API-call workers.
 */
export const DEFAULT_TASK_QUEUE = 'ferry';

export type HeavyWork = 'vmotion' | 'import' | 'sdn';
export type QueueRole = 'main' | HeavyWork;
export const QUEUE_ROLES: readonly QueueRole[] = ['main', 'vmotion', 'import', 'sdn'];

/**
 * The queue for heavy work next to a main queue: `ferry` → `ferry-vmotion`, `ferry-import`,
 * `ferry-sdn`. Workflows derive it from the queue they run on, so a second deployment (or a test) on
 * its own main queue gets its own heavy queues.
 */
export function heavyQueue(mainQueue: string, work: HeavyWork): string {
  return `${mainQueue}-${work}`;
}

export function queueName(mainQueue: string, role: QueueRole): string {
  return role === 'main' ? mainQueue : heavyQueue(mainQueue, role);
}

/**
 * Global limits are per deployment: the semaphore key is scoped by the main queue, except on the
 * default one (so production ids stay `semaphore-vmotion`, …).
 */
export function scopedLimitKey(mainQueue: string, key: string): string {
  return mainQueue === DEFAULT_TASK_QUEUE ? key : `${mainQueue}.${key}`;
}
