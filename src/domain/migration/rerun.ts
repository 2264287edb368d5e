import type { MigrationOutcome } from './status';

/** The latest run of a VM's migration workflow, as the wave finds it when the id is already taken. */
export interface PreviousRun {
  /** How Temporal lists it: RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, TIMED_OUT, … */
  status: string;
  /** The outcome a COMPLETED run returned. */
  outcome?: MigrationOutcome;
}

export type RerunDecision = { rerun: true } | { rerun: false; reason: string };

/**
 * Whether a wave may start a VM's migration again under the same workflow id. A VM is migrated at most
 * once: a run still going, or one that migrated it, stands. Every other ending (refused, rejected,
 * approval expired, rolled back, failed, terminated) left VMware as the VM's home, so a new run plans it
 * as it is now — which is what those outcomes tell the operator to do.
 */
export function rerunDecision(previous: PreviousRun, workflowId: string): RerunDecision {
  if (previous.status === 'RUNNING') {
    return { rerun: false, reason: `not started: workflow ${workflowId} is already migrating this VM; see it there` };
  }
  if (previous.status === 'COMPLETED' && previous.outcome === 'migrated') {
    return { rerun: false, reason: `not started: workflow ${workflowId} already migrated this VM` };
  }
  return { rerun: true };
}
