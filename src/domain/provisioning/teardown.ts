import type { StageTiming } from '../vm-run';
import type { WaitRecord } from '../waits';
import type { SignedDecision } from '../migration/approval';
import type { DecisionRecord } from '../migration/status';
import type { NetboxAfterTeardown } from './spec';
import type { IgnoredMessage } from '../vm-run';

/**
 * Teardown: stop and delete a VM, then undo each of its records. Each cleanup is its own step with its
 * own outcome; one that fails does not stop the others, and a rerun finishes what was left.
 */

/** Everything a teardown acts on, read once at its start (and carried to a rerun, see mergeTargets). */
export interface TeardownTarget {
  vmid: number;
  /** The VM's name (Proxmox or NetBox). */
  name?: string;
  /** The node the Proxmox VM is on; absent when Proxmox has no VM with this VMID. */
  node?: string;
  /** Proxmox power state when read. */
  power?: 'running' | 'stopped';
  netboxId?: number;
  netboxStatus?: string;
  /** The VM's A record name (`<name>.<zone>`), when a DNS zone is configured. */
  fqdn?: string;
  /** NetBox addresses of the VM (CIDR), with their ids; DNS-only knowledge has no id. */
  addresses: Array<{ address: string; id?: number }>;
  /** NetBox interfaces with the ids of their MAC objects. */
  interfaces: Array<{ id: number; name: string; macIds: number[] }>;
}

export type CleanupKind = 'dns' | 'known-hosts' | 'ip' | 'interfaces' | 'netbox-vm';

/** The cleanups, in the order they run: records that others are found by go last. */
export const CLEANUPS: readonly CleanupKind[] = ['dns', 'known-hosts', 'ip', 'interfaces', 'netbox-vm'];

export type CleanupResult = 'done' | 'already-absent' | 'failed' | 'skipped';

export interface CleanupOutcome {
  cleanup: CleanupKind;
  result: CleanupResult;
  /** What was removed or found absent, or why it was skipped. */
  detail: string;
  /** The failure, when `failed`. */
  error?: string;
}

export type TeardownStage =
  | 'resolve'
  | 'awaiting-approval'
  | 'shutdown'
  | 'stop'
  | 'delete'
  | 'cleanup'
  | 'done'
  | 'incomplete'
  | 'rejected'
  | 'approval-expired'
  | 'failed';

export type TeardownOutcome = 'torn-down' | 'incomplete' | 'rejected' | 'approval-expired';

/** The Proxmox side: what happened to the VM itself. */
export interface TeardownStep {
  step: 'shutdown' | 'stop' | 'delete';
  outcome: 'done' | 'already' | 'timed-out';
  detail?: string;
}

export interface TeardownStatus {
  kind: 'teardown';
  vmid: number;
  name?: string;
  netboxId?: number;
  stage: TeardownStage;
  timings: Array<StageTiming<TeardownStage>>;
  waiting?: { for: string; since: number };
  target?: TeardownTarget;
  /** An earlier run of this teardown ended incomplete; its target filled in what is gone now. */
  resumed?: boolean;
  /** Whether a person had to approve, and why. */
  approvalRequired?: string;
  approval?: DecisionRecord;
  rejection?: DecisionRecord;
  /** Signals that were not acted on (unknown approver, too late, …). */
  ignored: IgnoredMessage[];
  steps: TeardownStep[];
  cleanups: CleanupOutcome[];
  waits: WaitRecord[];
  error?: string;
  outcome?: TeardownOutcome;
}

export type TeardownResult = TeardownStatus & { outcome: TeardownOutcome };

/** approve (which may be signed, see SignedDecision) or reject. */
export type TeardownDecision = SignedDecision;

export function newTeardownStatus(vmid: number, netboxId?: number): TeardownStatus {
  return {
    kind: 'teardown',
    vmid,
    ...(netboxId !== undefined ? { netboxId } : {}),
    stage: 'resolve',
    timings: [],
    ignored: [],
    steps: [],
    cleanups: [],
    waits: [],
  };
}

export function teardownWorkflowId(vmid: number): string {
  return `teardown-${vmid}`;
}

/**
 * Why a person must approve this teardown, or undefined. Config lists the NetBox statuses that need
 * it (`active` by default): a VM in service is not removed on one command.
 */
export function approvalReason(
  target: Pick<TeardownTarget, 'netboxStatus' | 'netboxId'>,
  approvalFor: readonly string[],
  requested = false,
): string | undefined {
  if (requested) return 'approval was asked for when the teardown was started';
  if (target.netboxStatus && approvalFor.includes(target.netboxStatus)) {
    return `NetBox VM ${target.netboxId} is ${target.netboxStatus}; provisioning.teardown.approvalFor needs a person to approve that`;
  }
  return undefined;
}

/** The known_hosts entries a VM may have: its name, its FQDN and its addresses. */
export function knownHostNames(target: TeardownTarget): string[] {
  const names = [target.name, target.fqdn, ...target.addresses.map((a) => a.address.split('/')[0]!)];
  return [...new Set(names.filter((n): n is string => Boolean(n)))];
}

/**
 * A rerun reads what is left, but the records that told the first run where to look (the NetBox IP,
 * the VM record) may be gone by then. The first run's target fills in what the live read no longer
 * finds, as long as it is about the same VM: same VMID, and the same NetBox record and name where
 * both are known.
 */
export function mergeTargets(live: TeardownTarget, previous: TeardownTarget | undefined): TeardownTarget {
  if (!previous || previous.vmid !== live.vmid) return live;
  if (live.netboxId !== undefined && previous.netboxId !== undefined && live.netboxId !== previous.netboxId)
    return live;
  if (live.name !== undefined && previous.name !== undefined && live.name !== previous.name) return live;
  const addresses = [...live.addresses];
  for (const a of previous.addresses) if (!addresses.some((b) => b.address === a.address)) addresses.push(a);
  const interfaces = [...live.interfaces];
  for (const i of previous.interfaces) if (!interfaces.some((j) => j.id === i.id)) interfaces.push(i);
  return {
    ...live,
    name: live.name ?? previous.name,
    netboxId: live.netboxId ?? previous.netboxId,
    netboxStatus: live.netboxStatus ?? previous.netboxStatus,
    fqdn: live.fqdn ?? previous.fqdn,
    addresses,
    interfaces,
  };
}

export function teardownOutcome(cleanups: readonly CleanupOutcome[]): 'torn-down' | 'incomplete' {
  return cleanups.some((c) => c.result === 'failed') ? 'incomplete' : 'torn-down';
}

/** Settings a teardown runs with (ferry.yaml `provisioning.teardown`, loaded by the worker). */
export interface TeardownSettings {
  approvalFor: string[];
  approvalDeadlineMs?: number;
  netbox: NetboxAfterTeardown;
  shutdownTimeoutMs: number;
  knownHosts: boolean;
  cleanupAttempts: number;
}

export function describeCleanup(c: CleanupOutcome): string {
  return `${c.cleanup.padEnd(11)} ${c.result}: ${c.detail}${c.error ? ` — ${c.error}` : ''}`;
}
