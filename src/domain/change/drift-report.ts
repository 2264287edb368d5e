import type { ChangeClass, ChangeSide, PlannedChange } from './change';
import type { FieldKind } from './fields';
import type { ChangePlan } from './plan';
import type { VmReality } from './reality';

/**
 * The drift report (`ferry drift`, the `driftReport` workflow): each built VM of a cluster planned with
 * the change plan, nothing written, and only what a person needs kept per VM, so a report over a large
 * cluster stays well within Temporal's payload limit.
 */

/** One difference, as the report keeps it (the plan's change without its operation and rule). */
export interface DriftItem {
  id: string;
  kind: FieldKind;
  from?: string;
  to?: string;
  /** Proxmox's value waiting for the next start, when it differs from `from`. */
  pending?: string;
  pendingDelete?: true;
  class: ChangeClass;
  side: ChangeSide;
  /** Why it is refused (refused changes only: the others' class says enough). */
  reason?: string;
}

export interface VmDrift {
  netboxId: number;
  name: string;
  vmid: number;
  node?: string;
  power?: VmReality['power'];
  /** NetBox edits Proxmox does not have yet (side `netbox`). */
  toProxmox: DriftItem[];
  /** Changes made by hand in Proxmox (side `proxmox`, or `both` when NetBox moved too). */
  byHand: DriftItem[];
  /** What ferry would refuse to change, with the reason. */
  refused: DriftItem[];
  /** Why the record cannot be planned at all (provisioning's translation refused it). */
  problems?: string[];
}

/** A VM that could not be read on one side, with the reason. */
export interface UnreadableVm {
  netboxId: number;
  name: string;
  vmid?: number;
  reason: string;
}

export interface DriftReport {
  cluster: string;
  tag?: string;
  /** VMs read on both sides and planned. */
  read: number;
  /** The VMs that drift (or whose record cannot be planned), by NetBox id. */
  drifting: VmDrift[];
  unreadable: UnreadableVm[];
  /** Drifting VMs left out of `drifting` to keep the report within its size budget. */
  truncated?: number;
}

function itemOf(change: PlannedChange): DriftItem {
  return {
    id: change.id,
    kind: change.kind,
    ...(change.from !== undefined ? { from: change.from } : {}),
    ...(change.to !== undefined ? { to: change.to } : {}),
    ...(change.pending !== undefined ? { pending: change.pending } : {}),
    ...(change.pendingDelete ? { pendingDelete: true as const } : {}),
    class: change.class,
    side: change.side,
    ...(change.class === 'refused' ? { reason: change.why } : {}),
  };
}

/** One VM's plan (or why it has none) as the report keeps it. */
export function vmDriftOf(
  vm: { netboxId: number; name: string; vmid: number },
  planned: { plan: ChangePlan } | { problems: string[] },
): VmDrift {
  if ('problems' in planned) return { ...vm, toProxmox: [], byHand: [], refused: [], problems: planned.problems };
  const { plan } = planned;
  const items = plan.changes.map(itemOf);
  return {
    ...vm,
    node: plan.node,
    power: plan.power,
    toProxmox: items.filter((i) => i.class !== 'refused' && i.side === 'netbox'),
    byHand: items.filter((i) => i.class !== 'refused' && i.side !== 'netbox'),
    refused: items.filter((i) => i.class === 'refused'),
  };
}

/** Whether the VM differs from its record in any way (or its record cannot be planned). */
export function vmDrifts(vm: VmDrift): boolean {
  return vm.toProxmox.length + vm.byHand.length + vm.refused.length > 0 || (vm.problems?.length ?? 0) > 0;
}

/** About 1 MiB of JSON: half Temporal's 2 MB payload limit, room for the rest of the result. */
export const DRIFT_REPORT_BUDGET = 1024 * 1024;

/**
 * The report with its drifting VMs (sorted by NetBox id) kept while they fit the budget; the rest are
 * counted in `truncated` (the summary line still counts them).
 */
export function driftReportOf(
  base: Pick<DriftReport, 'cluster' | 'tag' | 'read' | 'unreadable'>,
  vms: readonly VmDrift[],
  budget = DRIFT_REPORT_BUDGET,
): DriftReport {
  const drifting = vms.filter(vmDrifts).sort((a, b) => a.netboxId - b.netboxId);
  let size = JSON.stringify(base).length;
  const kept: VmDrift[] = [];
  for (const vm of drifting) {
    size += JSON.stringify(vm).length + 1;
    if (size > budget) break;
    kept.push(vm);
  }
  const left = drifting.length - kept.length;
  return { ...base, drifting: kept, ...(left > 0 ? { truncated: left } : {}) };
}
