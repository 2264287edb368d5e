import type { WaitRecord } from '../waits';
import type { MigrationAction } from './actions';
import type { CutoverDecision } from './approval';
import type { Refusal } from './refusal';

export type MigrationStage =
  | 'validate'
  | 'networks'
  | 'shell'
  | 'relocate'
  | 'awaiting-approval'
  | 'shutdown'
  | 'import'
  | 'attach'
  | 'verify'
  | 'move'
  | 'start'
  | 'awaiting-decision'
  | 'rollback'
  | 'done'
  | 'refused'
  | 'rejected'
  | 'approval-expired'
  | 'rolled-back';

export type MigrationOutcome = 'migrated' | 'refused' | 'rejected' | 'approval-expired' | 'rolled-back';

export interface StageTiming {
  stage: MigrationStage;
  startedAt: number;
  endedAt?: number;
}


export interface DecisionRecord extends CutoverDecision {
  at: number;
  /** `update` (validated) or `signal` (from `temporal workflow signal`). */
  via: 'update' | 'signal';
}

export interface ImportRecord {
  slot: string;
  disk: string;
  volume: string;
  bytes: number;
  seconds: number;
}

export interface MigrationStatus {
  vm: string;
  moid: string;
  vmid?: number;
  stage: MigrationStage;
  outcome?: MigrationOutcome;
  actions: MigrationAction[];
  timings: StageTiming[];
  waits: WaitRecord[];
  approval?: DecisionRecord;
  rejection?: DecisionRecord;
  decisions: Array<DecisionRecord & { decision: 'retry' | 'rollback' }>;
  /** Signals that were not acted on (unknown approver, too late, …), so nothing is silently dropped. */
  ignored: Array<{ message: string; reason: string }>;
  refusals: Refusal[];
  imports: ImportRecord[];
  /** Slots holding VMware files attached in place (attach-then-move); detached, never deleted, on rollback. */
  attached: string[];
  /** The last failure, while a person decides what to do. */
  error?: string;
}

export type { WaitRecord };

export type MigrateVmResult = MigrationStatus & { outcome: MigrationOutcome };
