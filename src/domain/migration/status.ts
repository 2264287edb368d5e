import { stageSeconds, type StageTiming as GenericStageTiming } from '../vm-run';
import type { PlacementMoveRecord } from '../placement/move';
import type { VmPlacement } from '../placement/vm-settings';
import type { WaitRecord } from '../waits';
import type { MigrationAction } from './actions';
import type { CutoverDecision } from './approval';
import type { PowerState } from '../inventory';
import type { Refusal } from './refusal';
import type { CancellationRecord } from './cancel';
import type { CutoverSchedule } from './cutover-window';
import type { GuestVerification } from './verification';
import type { HaRegistration } from './ha';
import type { ConversionPlan } from '../conversion/decision';
import type { ConversionResult } from '../conversion/result';
import type { IgnoredMessage } from '../vm-run';

export type MigrationStage =
  | 'validate'
  | 'networks'
  | 'shell'
  | 'relocate'
  | 'inspect'
  | 'awaiting-approval'
  | 'awaiting-window'
  | 'shutdown'
  | 'convert'
  | 'import'
  | 'verify'
  | 'verify-guest'
  | 'start'
  | 'move'
  | 'awaiting-decision'
  | 'rollback'
  | 'done'
  | 'refused'
  | 'rejected'
  | 'approval-expired'
  | 'rolled-back'
  | 'cancelled';

export type MigrationOutcome = 'migrated' | 'refused' | 'rejected' | 'approval-expired' | 'rolled-back' | 'cancelled';

export type StageTiming = GenericStageTiming<MigrationStage>;
export { stageSeconds };

export interface DecisionRecord extends CutoverDecision {
  at: number;
  /**
   * `update` (validated) or `signal` (from `temporal workflow signal`); `setting`: ferry decided by
   * itself because the configuration said so (`migration.verify.onFailure: rollback`).
   */
  via: 'update' | 'signal' | 'setting';
  /** The approval carried the approver's signature, checked against their listed key. */
  signed?: true;
  /** The decision discarded what the guest wrote on Proxmox since a live import started it (acknowledged). */
  discardedGuestWrites?: true;
}

export interface ImportRecord {
  slot: string;
  disk: string;
  volume: string;
  bytes: number;
  /** 0 when nothing was copied (found already there). */
  seconds: number;
  /** Created by this workflow execution (any attempt of it); false: found from an earlier one, kept on rollback. */
  created: boolean;
}

/** A disk that ran from its overlay, moved live to its target storage (PVE move_disk, the overlay deleted). */
export interface MoveRecord {
  slot: string;
  /** The overlay volume it ran from. */
  from: string;
  storage: string;
  /** The volume on the target storage once moved. */
  volume?: string;
  bytes?: number;
  seconds?: number;
  /** Move attempts so far, retries included (a failed one leaves the VM running on its overlay). */
  attempts: number;
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
  ignored: IgnoredMessage[];
  refusals: Refusal[];
  /** A VM refused before its approval whose shell (built by this run) could not be removed: why. */
  shellKept?: string;
  imports: ImportRecord[];
  /**
   * live-import: this workflow replaced the shell by the VM it created with live-restore (set before the
   * create is asked for, so a create that failed counts too); a rollback destroys that VM.
   */
  replacedVm?: boolean;
  /** overlay: the VM started from its overlays (a rollback from then on discards what the guest wrote on Proxmox). */
  ranOnOverlays?: boolean;
  /** overlay: each disk's live move to its target storage, once asked for. */
  moves?: MoveRecord[];
  /** What a rollback left in place because this workflow did not create it. */
  keptOnRollback?: string[];
  /** The VMware power state read just before the shutdown: a rollback returns the VM to exactly it. */
  vmwarePowerState?: PowerState;
  /** Whether the guest was proven up after ferry started it (or why nothing was claimed). */
  verification?: GuestVerification;
  /** The last failure, while a person decides what to do. */
  error?: string;
  /** `ferry cancel`: who, why, how it was taken and what it left. */
  cancellation?: CancellationRecord;
  /** When the approved cutover starts (its window, `approve --at`), once approved. */
  schedule?: CutoverSchedule;
  /** Where the VM goes on Proxmox: its node, each disk's storage (and the node's memory commitment, when placed). */
  placement?: VmPlacement;
  /** Each accepted `ferry place`: who, why, from where to where. */
  placementMoves?: PlacementMoveRecord[];
  /** `migration.ha`: the VM's HA resource, once asked for. */
  ha?: HaRegistration;
  /** Guest conversion: its plan once the disks were inspected (before the approval), and what the cutover did. */
  conversion?: ConversionRecord;
  /** The overlays over the VMware disks, once the cutover asked for them. */
  overlays?: OverlaysRecord;
}

export interface ConversionRecord {
  plan: ConversionPlan;
  /** The last conversion's result (a retry that found it done answers from its record). */
  result?: ConversionResult;
}

/**
 * The qcow2 overlays over the VMware disks (conversion, overlay mode): once asked for they may exist,
 * and they are dropped when the disks are in Proxmox or on rollback (VMware's files were only read).
 */
export interface OverlaysRecord {
  /** The storage that mounts the migration datastore, and each disk's VMDK path in it. */
  storage: string;
  disks: Array<{ slot: string; source: string }>;
  /** The overlay files dropped (the disks are in Proxmox, or rolled back). */
  removed?: string[];
  /** Why dropping them failed (the migration still counts: the files are named for a person to remove). */
  cleanupWarning?: string;
}

export type { WaitRecord };

export type MigrateVmResult = MigrationStatus & { outcome: MigrationOutcome };
