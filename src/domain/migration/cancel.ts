import type { PowerState } from '../inventory';
import { decisionProblem, type CutoverDecision } from './approval';
import type { DecisionRecord, MigrationStage } from './status';

/** `ferry cancel`: who and why, and whether the diskless shells ferry built go too. */
export interface CancelRequest extends CutoverDecision {
  removeShells?: boolean;
}

/**
 * How a cancel is taken in a stage: before the shutdown the run stops where it is; inside the cutover
 * it is never cut in half, but waits at its next safe point (the decision after a step) for retry or
 * rollback.
 */
export type CancelEffect = 'stops-now' | 'at-safe-point';

/** What a cancelled VM left behind, read from vCenter and Proxmox after it stopped. */
export interface LeftOnCancel {
  /** The VM on VMware: its power state and where each disk is (a storage vMotion that finished stays). */
  vmware?: { powerState: PowerState; disks: Array<{ label: string; datastore?: string }> };
  /** The storage vMotion the cancel interrupted: its vCenter task and how it ended. */
  relocation?: string;
  shell: 'kept' | 'removed' | 'none';
  /** `--remove-shells` asked, and the shell could not be removed: why (it is kept). */
  shellNotRemoved?: string;
}

export interface CancellationRecord extends DecisionRecord {
  removeShells: boolean;
  /** The stage the VM was in when the cancel came, and how it was taken there. */
  stage: MigrationStage;
  effect: CancelEffect;
  /** In the cutover: when it reached its safe point and began to wait for retry or rollback. */
  safePointAt?: number;
  left?: LeftOnCancel;
}

const STOPS_NOW: readonly MigrationStage[] = [
  'validate',
  'networks',
  'shell',
  'relocate',
  'inspect',
  'awaiting-approval',
  'awaiting-window',
];
const AT_SAFE_POINT: readonly MigrationStage[] = [
  'shutdown',
  'convert',
  'import',
  'verify',
  'verify-guest',
  'start',
  'awaiting-decision',
];

/** How a cancel is taken in `stage`, or undefined when the run is past cancelling (ended or rolling back). */
export function cancelEffect(stage: MigrationStage): CancelEffect | undefined {
  if (STOPS_NOW.includes(stage)) return 'stops-now';
  if (AT_SAFE_POINT.includes(stage)) return 'at-safe-point';
  return undefined;
}

/** Why a cancel cannot be taken now, or undefined when it can. */
export function cancelProblem(
  request: Partial<CancelRequest> | undefined,
  approvers: readonly string[],
  stage: MigrationStage,
  earlier: DecisionRecord | undefined,
): string | undefined {
  const invalid = decisionProblem(request, approvers);
  if (invalid) return invalid;
  if (request!.removeShells !== undefined && typeof request!.removeShells !== 'boolean')
    return 'removeShells: expected true or false';
  if (earlier) return `already cancelled by ${earlier.by}`;
  if (stage === 'rollback') return 'the VM is rolling back already; it ends rolled back';
  if (!cancelEffect(stage)) return `nothing to cancel: the migration has ended (${stage})`;
  return undefined;
}

/** The outcome of a cancel in words, for the CLI and the status. */
export function cancelEffectText(effect: CancelEffect): string {
  return effect === 'stops-now'
    ? 'stops where it is (before the shutdown: VMware keeps running the VM)'
    : 'is inside its cutover: it finishes the step it is in, then waits for `ferry retry` or `ferry rollback`';
}
