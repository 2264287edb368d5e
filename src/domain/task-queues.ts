/**
 * Task queues. Heavy activities run on their own queues so the workers serving them can be placed and
 * sized apart from the API-call workers.
 */
export const TASK_QUEUES = {
  /** Workflows and light API activities. */
  main: 'ferry',
  /** Storage vMotion (vCenter RelocateVM_Task). */
  vmotion: 'ferry-vmotion',
  /** Disk imports into Proxmox storage. */
  import: 'ferry-import',
  /** Proxmox SDN writes (cluster-wide lock). */
  sdn: 'ferry-sdn',
} as const;

export type TaskQueue = (typeof TASK_QUEUES)[keyof typeof TASK_QUEUES];

export type HeavyWork = 'vmotion' | 'import' | 'sdn';

/**
 * The queue for heavy work next to a main queue: `ferry` → `ferry-vmotion`, `ferry-import`,
 * `ferry-sdn`. Workflows derive it from the queue they run on, so a second deployment (or a test) on
 * its own main queue gets its own heavy queues.
 */
export function heavyQueue(mainQueue: string, work: HeavyWork): string {
  return `${mainQueue}-${work}`;
}

/**
 * Global limits are per deployment: the semaphore key is scoped by the main queue, except on `ferry`
 * itself (so production ids stay `semaphore-vmotion`, …).
 */
export function scopedLimitKey(mainQueue: string, key: string): string {
  return mainQueue === TASK_QUEUES.main ? key : `${mainQueue}.${key}`;
}
