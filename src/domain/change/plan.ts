import { EMPTY_BASELINE, type Baseline } from './baseline';
import type { AcceptedDrift, PlannedChange } from './change';
import type { PlanContext } from './context';
import { memoryVerdict, vcpusVerdict } from './cpu-memory';
import { planDisks } from './disk-changes';
import type { VmIntent } from './intent';
import { planNics } from './nic-changes';
import { onlyPendingDiffers, PlanBook, revertVerdict, type ComparedField } from './plan-book';
import type { ChangePolicy } from './policy';
import { pendingKeys, realityViews, type VmReality } from './reality';
import { applySteps, type ApplySteps } from './steps';
import { StorageRoom } from './storage-room';
import { vcpusOf } from './vm-config';

/**
 * The change plan: every difference between NetBox's intent and the Proxmox VM as one typed change
 * with its class, and the operations grouped into few requests. Pure: the same inputs give the same
 * plan, and `ferry plan --change` shows exactly what the workflow then does.
 */
export interface ChangePlan {
  vmid: number;
  node: string;
  power: VmReality['power'];
  changes: PlannedChange[];
  /** Hand changes the policy keeps (handDrift `proxmox`): no change, listed so a report shows them. */
  accepted: AcceptedDrift[];
  /** Every managed field compared, both sides (Proxmox's after the next start): the next baseline is made from it. */
  compared: Record<string, ComparedField>;
  steps: ApplySteps;
  /** What a person should know that is no change (e.g. pending changes a write to a stopped VM applies). */
  notes: string[];
  /** The digest of the config read: the first write is guarded by it. */
  digest?: string;
}

export function planChanges(
  intent: VmIntent,
  reality: VmReality,
  baseline: Baseline | undefined,
  policy: ChangePolicy,
): ChangePlan {
  const views = realityViews(reality);
  const ctx: PlanContext = {
    running: reality.power === 'running',
    views,
    pendingKeys: pendingKeys(reality),
    baseline: baseline ?? EMPTY_BASELINE,
    policy,
    room: new StorageRoom(reality.storages, reality.node),
  };
  const book = new PlanBook(ctx);
  planCpu(book, intent.vcpus);
  planMemory(book, intent.memoryMiB);
  planDisks(book, intent.disks);
  planNics(book, intent.nics);
  return {
    vmid: reality.vmid,
    node: reality.node,
    power: reality.power,
    changes: book.changes,
    accepted: book.accepted,
    compared: book.compared,
    steps: applySteps(book.changes, views),
    notes: notesOf(book, reality),
    ...(reality.digest ? { digest: reality.digest } : {}),
  };
}

function planCpu(book: PlanBook, vcpus: number): void {
  const { current, effective } = book.ctx.views;
  const delta = {
    id: 'vcpus',
    kind: 'vcpus' as const,
    want: String(vcpus),
    current: String(vcpusOf(current)),
    effective: String(vcpusOf(effective)),
  };
  const cpuKeys = ['cores', 'sockets', 'vcpus'].filter((k) => book.ctx.pendingKeys.has(k));
  book.consider(delta, () =>
    onlyPendingDiffers(delta) ? revertVerdict({ op: 'revert', keys: cpuKeys }) : vcpusVerdict(vcpus, book.ctx),
  );
}

function planMemory(book: PlanBook, mib: number): void {
  const { current, effective } = book.ctx.views;
  const delta = {
    id: 'memory',
    kind: 'memory' as const,
    want: String(mib),
    current: String(current.memoryMiB),
    effective: String(effective.memoryMiB),
  };
  book.consider(delta, () =>
    onlyPendingDiffers(delta) ? revertVerdict({ op: 'revert', keys: ['memory'] }) : memoryVerdict(mib, book.ctx),
  );
}

/** A stopped VM applies every pending change with any write (vmconfig_apply_pending), not only ferry's. */
function notesOf(book: PlanBook, reality: VmReality): string[] {
  const writes = book.changes.some((c) => c.operation);
  if (reality.power !== 'stopped' || !writes || reality.pending.length === 0) return [];
  const keys = reality.pending.map((p) => p.key).join(', ');
  return [
    `VM ${reality.vmid} is stopped with pending changes (${keys}): Proxmox applies all of them with ferry's first write`,
  ];
}

/** Whether a plan does nothing: no change acts (reported and refused ones may remain). */
export function planWritesNothing(plan: Pick<ChangePlan, 'steps'>): boolean {
  const s = plan.steps;
  return !s.live && !s.restart && !s.stopped && s.moves.length === 0 && s.resizes.length === 0;
}
