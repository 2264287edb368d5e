/**
 * Global limits are permits held through one semaphore workflow per key (`semaphore-<key>`), so they
 * hold across any number of worker processes and show in the Temporal UI.
 */
export interface PermitRequest {
  /** Unique per acquisition; repeats of the same request are ignored (activity retries, replays). */
  requestId: string;
  /** Workflow to signal `permitGranted` when the permit is given. */
  holderWorkflowId: string;
  /** What the permit is for, shown in the semaphore's state (e.g. `relocate mig-web01`). */
  label: string;
  /** A holder that neither releases nor renews within this time loses the permit. */
  leaseMs: number;
}

export interface PermitHolder extends PermitRequest {
  grantedAt: number;
  leaseUntil: number;
  /** The waiter this holder was told to hand its permit to (requestId), see permitSuccessorSignal. */
  successor?: string;
}

/** A waiter a holder hands its permit to directly. */
export interface PermitSuccessor {
  requestId: string;
  holderWorkflowId: string;
}

export interface PermitWaiter extends PermitRequest {
  requestedAt: number;
}

export interface SemaphoreState {
  key: string;
  permits: number;
  holders: PermitHolder[];
  waiting: PermitWaiter[];
  /** Permits taken back from holders whose lease ran out, since the semaphore started. */
  expiredLeases: number;
  granted: number;
}

export interface SemaphoreInput {
  key: string;
  /** Permits at start; change them at run time with the `setPermits` update. */
  permits: number;
  /** State carried across continue-as-new. */
  carried?: SemaphoreState;
}

export function semaphoreWorkflowId(key: string): string {
  return `semaphore-${key}`;
}

/** Permit keys ferry uses. `import` is per target storage because imports load the storage. */
export const PERMIT_KEYS = {
  vmotion: 'vmotion',
  import: (storage: string) => `import-${storage}`,
  sdn: 'sdn',
  vmStart: 'vm-start',
  convert: 'convert',
} as const;

export function describeSemaphore(s: SemaphoreState): string {
  const held = s.holders.map((h) => h.label).join(', ') || 'none';
  return `${s.key}: ${s.holders.length}/${s.permits} held (${held}); ${s.waiting.length} waiting`;
}
