import { formatDiskSize } from '../pve-disk-size';
import type { PlannedChange } from './change';
import { fieldValue } from './field-value';
import type { ChangePlan } from './plan';
import { realityViews, type PendingEntry, type RealityViews } from './reality';

/**
 * Each change's outcome after the workflow applied a plan, judged from what Proxmox answers when read
 * back (`config` and `pending`) and, where the guest agent answers, from the guest's own view. A change
 * called live that sits in pending has failed; nothing is taken on trust.
 */

export type ChangeOutcomeKind =
  | 'applied-live'
  | 'pending-restart'
  | 'applied-after-restart'
  | 'refused'
  | 'failed'
  /** Not sent: it waits for an approval or a window. */
  | 'held'
  /** Drift the policy reports: nothing was to be done. */
  | 'reported';

export interface ChangeOutcome {
  id: string;
  outcome: ChangeOutcomeKind;
  detail: string;
}

/** What the guest agent says of the guest, when it answers (the activity maps disks to slots). */
export interface GuestView {
  /** Memory the guest has online. */
  memoryMiB?: number;
  /** A disk's size as the guest sees it, by Proxmox slot. */
  diskBytes?: Record<string, number>;
  /** Interfaces by MAC (any case), with their addresses (`192.0.2.10/24` or without the prefix length). */
  interfaces?: Array<{ mac: string; addresses: string[] }>;
}

export interface ReadBack {
  config: Record<string, string>;
  pending: PendingEntry[];
  guest?: GuestView;
}

export interface VerifyInput {
  plan: Pick<ChangePlan, 'changes'>;
  /** Ids of the changes whose operations were sent (a gate may hold the rest). */
  sent: ReadonlySet<string>;
  readBack: ReadBack;
  /** NetBox's address of a NIC, by slot: the guest interface with the NIC's MAC must carry it. */
  addresses?: Record<string, string>;
  /** The VM was started again after the writes that wait for the restart were sent. */
  restarted?: boolean;
}

export function verifyChanges(input: VerifyInput): ChangeOutcome[] {
  const views = realityViews(input.readBack);
  return input.plan.changes.map((change) => ({ id: change.id, ...outcomeOf(change, input, views) }));
}

type Verdict = Omit<ChangeOutcome, 'id'>;

function outcomeOf(change: PlannedChange, input: VerifyInput, views: RealityViews): Verdict {
  if (change.class === 'refused') return { outcome: 'refused', detail: change.why };
  if (change.class === 'reported') return { outcome: 'reported', detail: change.why };
  if (!input.sent.has(change.id) && !change.alreadyPending)
    return { outcome: 'held', detail: 'not sent: waits for an approval or a maintenance window' };
  const now = fieldValue(views.current, change);
  const next = fieldValue(views.effective, change);
  if (now === change.to) {
    const kept = sourceKept(change, views) ?? guestCheck(change, input, views);
    if (kept) return { outcome: 'failed', detail: kept };
    return appliedOutcome(change, input.restarted ?? false);
  }
  if (next === change.to) {
    if (change.waitsForRestart)
      return { outcome: 'pending-restart', detail: `Proxmox holds it until the VM's next start` };
    return {
      outcome: 'failed',
      detail: `called ${change.class}, but it sits in pending (now ${show(change, now)}, pending ${show(change, next)})`,
    };
  }
  const pending = next !== now ? `, pending ${show(change, next)}` : '';
  return { outcome: 'failed', detail: `Proxmox has ${show(change, now)}${pending}; wanted ${show(change, change.to)}` };
}

function appliedOutcome(change: PlannedChange, restarted: boolean): Verdict {
  if (change.class === 'needs-stop')
    return { outcome: 'applied-after-restart', detail: 'applied with the VM stopped, then started' };
  if (!change.waitsForRestart) return { outcome: 'applied-live', detail: 'Proxmox has it, nothing pending' };
  if (restarted) return { outcome: 'applied-after-restart', detail: 'applied at the VM’s start' };
  return { outcome: 'applied-live', detail: 'Proxmox applied it at once, though the plan expected it at the restart' };
}

const show = (change: PlannedChange, value: string | undefined) =>
  value === undefined ? 'none' : change.kind === 'disk.size' ? formatDiskSize(Number(value)) : value;

/** A moved disk's source and a detached disk's volume must remain as unusedN (unless the plan deletes the source). */
function sourceKept(change: PlannedChange, views: RealityViews): string | undefined {
  const op = change.operation;
  const unused = [...views.current.unused.values()];
  if (op?.op === 'move-disk' && !op.deleteSource && !unused.includes(op.sourceVolume))
    return `moved, but the source ${op.sourceVolume} is not kept as unusedN`;
  if (op?.op === 'detach-disk' && !unused.includes(op.volume))
    return `detached, but ${op.volume} is not kept as unusedN`;
  return undefined;
}

/** The guest's own view, where the agent answered: memory online, a disk's size, the NIC's MAC and address. */
function guestCheck(change: PlannedChange, input: VerifyInput, views: RealityViews): string | undefined {
  const guest = input.readBack.guest;
  if (!guest) return undefined;
  if (change.kind === 'memory' && guest.memoryMiB !== undefined) return memorySeen(change, guest.memoryMiB);
  if (change.kind === 'disk.size' && guest.diskBytes?.[change.slot!] !== undefined) {
    const seen = guest.diskBytes[change.slot!]!;
    return String(seen) === change.to
      ? undefined
      : `the guest sees ${change.slot} as ${formatDiskSize(seen)}, not ${show(change, change.to)}`;
  }
  const nicChange = change.kind === 'nic' ? change.to !== undefined : change.kind.startsWith('nic.');
  if (nicChange && guest.interfaces)
    return nicSeen(change.slot!, guest.interfaces, input.addresses?.[change.slot!], views);
  return undefined;
}

/** More memory: the guest has more than before (hot-added DIMMs are online); less: no more than asked. */
function memorySeen(change: PlannedChange, seen: number): string | undefined {
  const before = Number(change.from);
  const wanted = Number(change.to);
  if (wanted > before && seen <= before)
    return `the guest sees ${seen} MiB, no more than the ${before} MiB before: the new memory is not online`;
  if (wanted < before && seen > wanted) return `the guest still sees ${seen} MiB, more than ${wanted} MiB`;
  return undefined;
}

function nicSeen(
  slot: string,
  interfaces: NonNullable<GuestView['interfaces']>,
  address: string | undefined,
  views: RealityViews,
): string | undefined {
  const mac = views.current.nics.get(slot)?.mac;
  if (!mac) return undefined;
  const iface = interfaces.find((i) => i.mac.toUpperCase() === mac);
  if (!iface) return `the guest has no interface with ${slot}'s MAC ${mac}`;
  if (!address) return undefined;
  const host = address.split('/')[0];
  if (iface.addresses.some((a) => a.split('/')[0] === host)) return undefined;
  return `the guest's interface with MAC ${mac} does not have NetBox's address ${address}`;
}
