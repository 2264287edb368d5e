import type { VmPlacement } from '../placement/vm-settings';
import type { ApprovalSignature } from '../approvals/statement';
import type { DecisionRecord } from './status';
import type { MigrationOutcome, MigrationStage } from './status';
import type { Refusal } from './refusal';
import type { GuestVerification } from './verification';
import type { CancellationRecord } from './cancel';
import type { CutoverWindow } from './cutover-window';
import type { IgnoredMessage } from '../vm-run';

export type WaveVmState = 'pending' | 'running' | 'finished';

/** Copies added up: their bytes and the seconds they took. */
export interface CopyTotals {
  bytes: number;
  seconds: number;
}

/** `totals` with the copies that took time added (one found already there moved nothing). */
export function addCopies(
  totals: CopyTotals | undefined,
  copies: ReadonlyArray<{ bytes: number; seconds: number }>,
): CopyTotals {
  const sum = { bytes: totals?.bytes ?? 0, seconds: totals?.seconds ?? 0 };
  for (const c of copies) {
    if (!(c.seconds > 0) || !(c.bytes > 0)) continue;
    sum.bytes += c.bytes;
    sum.seconds += c.seconds;
  }
  return sum;
}

export interface WaveVm {
  moid: string;
  name: string;
  workflowId: string;
  state: WaveVmState;
  stage?: MigrationStage;
  /** The number of the child's latest stage signal applied (stage signals may arrive out of order). */
  stageSeq?: number;
  /** When the VM entered its current stage (the child's time), for the age of a wait. */
  stageAt?: number;
  /** Its disks' bytes (what its vMotion and import move), for the wave's ETA. */
  bytes?: number;
  outcome?: MigrationOutcome;
  /** Its Proxmox VMID, as its workflow reported it at the end. */
  vmid?: number;
  startedAt?: number;
  finishedAt?: number;
  /** Set when the child failed outright (not a refusal or rejection). */
  error?: string;
  /** Why the VM was refused (by its own workflow, e.g. before its approval): its reasons in one line. */
  refusal?: string;
  /** How the child's workflow closed when it ended without reporting (terminated, timed out, …). */
  closedAs?: string;
  /** Whether its guest was proven up, with boot-to-agent and downtime (children that report it). */
  verification?: VerificationSummary;
  /** `ferry cancel`, as the VM took it and what it left (absent for a VM cancelled before it started). */
  cancellation?: CancellationRecord;
  /** Where placement put it: the node, and the storage per disk label (waves that place their VMs). */
  placement?: VmPlacement;
}

/** A VM's verification as its wave shows it: the verdict and the two figures, without the checks. */
export type VerificationSummary = Pick<GuestVerification, 'state' | 'bootToAgentSeconds' | 'downtimeSeconds'>;

/**
 * What a child reports to its wave when it ends: what the wave's record of it needs, not its actions
 * or timings (those stay in the VM's own workflow, so the wave's history, result and carry stay small).
 */
export interface VmFinished {
  moid: string;
  outcome?: MigrationOutcome;
  error?: string;
  /** A refused VM: why, in one line (its workflow's result has each refusal). */
  refusal?: string;
  /** The stage it ended in. */
  stage?: MigrationStage;
  vmid?: number;
  /** How long its storage vMotion took, when it ran one (for the wave's measured vMotion rate). */
  relocateSeconds?: number;
  imports: Array<{ bytes: number; seconds: number }>;
  verification?: VerificationSummary;
  cancellation?: CancellationRecord;
}

export interface WaveApproval extends DecisionRecord {
  /** VM names approved, or every VM of the wave. */
  vms: string[] | 'all';
  /** A signed approval, passed on to each VM it covers exactly as signed (each VM checks it again). */
  signature?: ApprovalSignature;
  /** `approve --at`: the cutovers start no earlier than this (epoch ms). */
  notBefore?: number;
}

export interface WaveStatus {
  waveId: string;
  stage: 'discover' | 'networks' | 'migrating' | 'done';
  vms: WaveVm[];
  refused: Array<{ name: string; moid: string; refusals: Refusal[] }>;
  approvals: WaveApproval[];
  /** Approval signals that were not acted on (unknown approver, unknown VM, …), so nothing is silently dropped. */
  ignored: IgnoredMessage[];
  counts: Record<WaveVmState, number>;
  /** Finished imports across the wave, for downtime estimates. */
  importThroughputBytesPerSecond?: number;
  /** The finished imports' bytes and seconds added up (copies that took time), for the measured import rate. */
  importTotals?: CopyTotals;
  /** The finished storage vMotions' bytes and seconds added up, for the measured vMotion rate. */
  relocateTotals?: CopyTotals;
  /** Approved cutovers start only inside it. */
  cutoverWindow?: CutoverWindow;
  /** `ferry cancel <wave>`: who, why, and whether shells go too. */
  cancellation?: DecisionRecord & { removeShells: boolean };
}

/** A wave's status before discovery. */
export function newWaveStatus(waveId: string): WaveStatus {
  return {
    waveId,
    stage: 'discover',
    vms: [],
    refused: [],
    approvals: [],
    ignored: [],
    counts: { pending: 0, running: 0, finished: 0 },
  };
}

export function waveCounts(vms: readonly WaveVm[]): Record<WaveVmState, number> {
  const counts: Record<WaveVmState, number> = { pending: 0, running: 0, finished: 0 };
  for (const vm of vms) counts[vm.state] += 1;
  return counts;
}

export function approvalCovers(approval: WaveApproval, vmName: string): boolean {
  return approval.vms === 'all' || approval.vms.includes(vmName);
}

/** Is this VM covered by the wave's approvals so far? */
export function approvedBy(approvals: readonly WaveApproval[], vmName: string): WaveApproval | undefined {
  return approvals.find((a) => approvalCovers(a, vmName));
}

/**
 * Whether a VM's stage signal numbered `seq` still tells the wave something: not once the VM finished,
 * and not when a later stage was applied already (the stage changes of one workflow task are separate
 * signals, and those may arrive in any order).
 */
export function stageReportApplies(vm: Pick<WaveVm, 'state' | 'stageSeq'>, seq: number | undefined): boolean {
  if (vm.state === 'finished') return false;
  return seq === undefined || vm.stageSeq === undefined || seq > vm.stageSeq;
}

/** Names shown at most in a summary of a selection by names. */
const NAMES_SHOWN = 3;

/**
 * The VMs a wave selects, in words for the Temporal UI (`VMs in /DC0/vm/apps tagged ferry/wave1`).
 * The selection's filters all apply together.
 */
export function selectionSummary(selection: {
  names?: readonly string[];
  folder?: string;
  cluster?: string;
  tag?: string;
}): string {
  const parts = ['VMs'];
  const { names } = selection;
  if (names) {
    const more = names.length > NAMES_SHOWN ? ` +${names.length - NAMES_SHOWN} more` : '';
    parts.push(names.length === 0 ? 'named (none)' : `named ${names.slice(0, NAMES_SHOWN).join(', ')}${more}`);
  }
  if (selection.folder) parts.push(`in ${selection.folder}`);
  if (selection.cluster) parts.push(`in cluster ${selection.cluster}`);
  if (selection.tag) parts.push(`tagged ${selection.tag}`);
  return parts.join(' ');
}
