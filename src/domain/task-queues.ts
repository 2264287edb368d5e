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
