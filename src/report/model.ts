/**
 * The report of a migration wave or a provision batch: what `ferry report --json` prints and what the
 * HTML and Markdown renderers draw. Times are epoch milliseconds.
 */
export type ReportKind = 'migration-wave' | 'provision-batch';

/** A stage of the VM's workflow, or a wait inside one (permit, timer), on the VM's timeline. */
export interface Bar {
  lane: 'stage' | 'wait';
  label: string;
  /** Colour key: a known stage or wait kind, or `other` for names this report does not know. */
  category: string;
  start: number;
  end: number;
  /** Still going when the report was made. */
  open: boolean;
  detail?: string;
}

/** A point in time on a VM's timeline: an approval, a failure, a decision. */
export interface Mark {
  kind: 'approval' | 'failure' | 'decision';
  at: number;
  label: string;
}

export interface VmReport {
  name: string;
  workflowId: string;
  /** running, or how the workflow closed (completed, failed, …). */
  state: string;
  outcome?: string;
  vmid?: number;
  startedAt: number;
  endedAt?: number;
  bars: Bar[];
  marks: Mark[];
  /** From the VMware shutdown to the guest proven up (or the workflow's end); absent before a shutdown. */
  downtimeMs?: number;
  /** When the downtime began (the shutdown's start). */
  downtimeFrom?: number;
  downtimeOpen?: boolean;
  /** Time in the guest conversion stage (part of the downtime: it runs between the shutdown and the import). */
  conversionMs?: number;
  /** Copied while the VM was down (import, live-import). */
  importedBytes: number;
  /** Overlay mode: moved live to the target storage after the boot, while the guest ran (not downtime). */
  movedLiveBytes: number;
  verification?: string;
  error?: string;
}

export interface RefusalEntry {
  vm: string;
  reasons: string[];
}

export interface ApprovalEntry {
  decision: string;
  by: string;
  reason: string;
  at?: number;
  via?: string;
  /** true: signed and checked; false: taken unsigned (`approvals: unsigned`); absent: not known (only sent so far). */
  signed?: boolean;
  /** The VMs it covered, or `all`. */
  vms: string[] | 'all';
}

/** A message a workflow heard and did not act on, with why (an unknown approver, no signature, …). */
export interface IgnoredEntry {
  /** The VM, or absent for the wave itself. */
  vm?: string;
  message: string;
  reason: string;
}

export interface DecisionEntry {
  decision: string;
  by: string;
  reason: string;
  at?: number;
  via?: string;
  /** As in ApprovalEntry. */
  signed?: boolean;
}

export interface FailureEntry {
  vm: string;
  at: number;
  what: string;
  message: string;
  /** The decisions taken on the VM after this failure (retry, rollback), in order. */
  decisions: DecisionEntry[];
}

export interface ThroughputPoint {
  at: number;
  vmsDone: number;
  bytesImported: number;
  /** Overlay mode: bytes moved live to their storage after the boot (no downtime). */
  bytesMovedLive: number;
}

export interface Totals {
  vms: number;
  outcomes: Record<string, number>;
  refused: number;
  approvals: number;
  ignored: number;
  failures: number;
  downtime: { count: number; totalMs: number; maxMs: number; medianMs: number };
  bytesImported: number;
  bytesMovedLive: number;
  durationMs: number;
}

export interface ReportModel {
  kind: ReportKind;
  id: string;
  workflowId: string;
  state: string;
  startedAt: number;
  endedAt?: number;
  generatedAt: number;
  vms: VmReport[];
  throughput: ThroughputPoint[];
  refusals: RefusalEntry[];
  approvals: ApprovalEntry[];
  ignored: IgnoredEntry[];
  failures: FailureEntry[];
  totals: Totals;
}
