import { formatDiskSize } from '../pve-disk-size';
import type { PlannedChange } from './change';
import { RULES, refused, type Verdict } from './context';
import type { Decision, FieldDelta } from './decide';
import { canonicalDiskOption, DISK_OPTIONS_AT_RESTART, MANAGED_DISK_OPTIONS } from './disk-options';
import { naturalOrder } from './fields';
import type { IntendedDisk } from './intent';
import { onlyPendingDiffers, revertVerdict, type PlanBook } from './plan-book';
import { settleSlot } from './slot-settle';
import type { DiskView } from './vm-config';

/**
 * Disks: added (empty: `import-from` only ever at creation), detached when gone from NetBox, grown,
 * moved to another storage, and their options. Read in proxmox/qemu-server: vmconfig_update_disk and
 * the delete branch of vmconfig_hotplug_pending (PVE/QemuServer.pm), resize_vm and move_vm_disk
 * (PVE/API2/Qemu.pm).
 */

const PRESENT = 'present';
const STOPPED = 'the VM is stopped: the write applies at once (vmconfig_apply_pending)';

export function planDisks(book: PlanBook, disks: readonly IntendedDisk[]): void {
  const { current, effective } = book.ctx.views;
  const slots = new Set([...disks.map((d) => d.slot), ...current.disks.keys(), ...effective.disks.keys()]);
  for (const slot of [...slots].sort(naturalOrder)) {
    const wanted = disks.find((d) => d.slot === slot);
    const delta: FieldDelta = {
      id: slot,
      kind: 'disk',
      slot,
      want: wanted ? PRESENT : undefined,
      current: current.disks.has(slot) ? PRESENT : undefined,
      effective: effective.disks.has(slot) ? PRESENT : undefined,
    };
    book.consider(delta, (decision) => presenceVerdict(book, delta, decision, wanted));
    const next = effective.disks.get(slot);
    if (wanted && next) planDiskFields(book, wanted, next, current.disks.get(slot));
  }
}

/** Whether a running VM plugs or unplugs this disk at once: `disk` hotplug, and never ide or sata. */
function hotPluggable(book: PlanBook, slot: string): boolean {
  return book.ctx.views.current.hotplug.has('disk') && !/^(ide|sata)\d+$/.test(slot);
}

function presenceVerdict(
  book: PlanBook,
  delta: FieldDelta,
  decision: Extract<Decision, { act: 'apply' }>,
  wanted: IntendedDisk | undefined,
): Verdict {
  const slot = delta.slot!;
  if (onlyPendingDiffers(delta)) return revertVerdict({ op: 'revert', keys: [slot] });
  if (wanted) return addVerdict(book, wanted, decision);
  const disk = (book.ctx.views.current.disks.get(slot) ?? book.ctx.views.effective.disks.get(slot))!;
  const { current } = book.ctx.views;
  if (current.bootOrder.find((d) => current.disks.has(d)) === slot)
    return refused(`${slot} is the disk the VM boots from; ferry does not detach it`, RULES.ferry);
  const operation = { op: 'detach-disk' as const, slot, volume: disk.volume };
  const why = `gone from NetBox: detached, its volume kept as unusedN (deleting it needs an approval)`;
  if (!book.ctx.running) return { class: 'detach', why: `${why}; ${STOPPED}`, rule: RULES.applyPending, operation };
  if (hotPluggable(book, slot))
    return { class: 'detach', why: `${why}; hot-unplugged now`, rule: RULES.hotplugPending, operation };
  return {
    class: 'detach',
    why: `${why}; ${/^(ide|sata)/.test(slot) ? 'ide and sata disks are never hot-unplugged' : 'disk is not in the VM’s hotplug'}: it is detached at the next start`,
    rule: RULES.applyPending,
    operation,
    waitsForRestart: true,
  };
}

function addVerdict(book: PlanBook, wanted: IntendedDisk, decision: Extract<Decision, { act: 'apply' }>): Verdict {
  const { slot } = wanted;
  if (decision.side === 'proxmox')
    return refused(
      `${slot} was removed in Proxmox by hand; ferry does not put an empty disk in its place: reattach its volume (unusedN) or remove it from NetBox`,
      RULES.ferry,
    );
  const { current, effective } = book.ctx.views;
  if (current.mediaSlots.has(slot) || effective.mediaSlots.has(slot))
    return refused(
      `${slot} holds a CD drive or the cloud-init drive: give the disk another slot in NetBox`,
      RULES.ferry,
    );
  const full = book.ctx.room.claim(wanted.storage, wanted.sizeBytes);
  if (full) return refused(full, RULES.moveDisk);
  const operation = {
    op: 'add-disk' as const,
    slot,
    storage: wanted.storage,
    sizeGiB: wanted.sizeGiB,
    options: wanted.options,
  };
  const what = `a new, empty ${wanted.sizeGiB} GiB disk on ${wanted.storage}`;
  if (!book.ctx.running) return { class: 'live', why: `${what}; ${STOPPED}`, rule: RULES.applyPending, operation };
  if (hotPluggable(book, slot))
    return { class: 'live', why: `${what}, hot-plugged`, rule: RULES.updateDisk, operation };
  const reason = /^(ide|sata)/.test(slot)
    ? 'ide and sata disks are never hot-plugged'
    : 'disk is not in the VM’s hotplug';
  return {
    class: 'at-restart',
    why: `${what}, allocated now and attached at the next start (${reason})`,
    rule: RULES.updateDisk,
    operation,
  };
}

function planDiskFields(book: PlanBook, wanted: IntendedDisk, next: DiskView, now: DiskView | undefined): void {
  const slot = wanted.slot;
  const before = now ?? next;
  const changes: PlannedChange[] = [];
  const keep = (c: PlannedChange | undefined) => c && changes.push(c);
  const target = wanted.storageFromNetbox ? wanted.storage : next.storage;
  let moved: PlannedChange | undefined;
  if (target !== undefined) {
    const delta = field(slot, 'storage', 'disk.storage', target, before.storage, next.storage);
    keep((moved = book.consider(delta, () => moveVerdict(book, wanted, target, now))));
  }
  // A disk moved in this plan grows on its new storage (the move comes first, see steps.ts).
  const growsOn = moved?.class === 'move' ? target : before.storage;
  const size = field(slot, 'size', 'disk.size', String(wanted.sizeBytes), str(before.sizeBytes), str(next.sizeBytes));
  keep(book.consider(size, () => growVerdict(book, wanted, growsOn, now)));
  for (const key of MANAGED_DISK_OPTIONS) {
    const want = canonicalDiskOption(key, wanted.options[key]);
    const delta = field(
      slot,
      key,
      'disk.option',
      want,
      canonicalDiskOption(key, before.options[key]),
      canonicalDiskOption(key, next.options[key]),
    );
    keep(book.consider(delta, () => optionVerdict(book, delta, key, wanted, now)));
  }
  const optionIds = MANAGED_DISK_OPTIONS.filter(
    (k) => canonicalDiskOption(k, before.options[k]) !== canonicalDiskOption(k, next.options[k]),
  );
  settleSlot(
    slot,
    changes.filter((c) => c.kind === 'disk.option'),
    optionIds.map((k) => `${slot}.${k}`),
    'disk',
  );
}

function field(
  slot: string,
  name: string,
  kind: FieldDelta['kind'],
  want: string | undefined,
  current: string | undefined,
  effective: string | undefined,
): FieldDelta {
  return { id: `${slot}.${name}`, kind, slot, want, current, effective };
}

const str = (n: number | undefined) => (n === undefined ? undefined : String(n));

/** A disk with a pending value (or itself pending) is not resized or moved: the pending value would undo it at restart. */
function pendingRefusal(book: PlanBook, slot: string, now: DiskView | undefined, what: string): Verdict | undefined {
  if (!now)
    return refused(
      `${slot} is not attached yet (pending until the next start): ferry ${what} it after the restart`,
      RULES.applyPending,
    );
  if (book.ctx.pendingKeys.has(slot))
    return refused(
      `${slot} has a pending change in Proxmox; the pending drive would undo this at the next start: ferry ${what} it once that change is applied or reverted`,
      RULES.applyPending,
    );
  return undefined;
}

function moveVerdict(book: PlanBook, wanted: IntendedDisk, target: string, now: DiskView | undefined): Verdict {
  const slot = wanted.slot;
  const blocked = pendingRefusal(book, slot, now, 'moves');
  if (blocked) return blocked;
  const disk = now!;
  if (disk.storage === undefined)
    return refused(`${slot} is a path (${disk.volume}), not a volume on a Proxmox storage`, RULES.moveDisk);
  const full = book.ctx.room.claim(target, Math.max(wanted.sizeBytes, disk.sizeBytes ?? 0));
  if (full) return refused(full, RULES.moveDisk);
  const snapshots = book.ctx.views.current.hasSnapshots;
  const deleteSource = book.ctx.policy.movedDiskSource === 'delete' && !snapshots;
  const source = deleteSource
    ? 'the source deleted after the copy (change.movedDiskSource: delete)'
    : `the source kept as unusedN${snapshots && book.ctx.policy.movedDiskSource === 'delete' ? ' (the VM has snapshots: Proxmox deletes no source then)' : ''}`;
  return {
    class: 'move',
    why: `copied to ${target} ${book.ctx.running ? 'while the VM runs (drive-mirror)' : 'with the VM stopped'}, ${source}`,
    rule: RULES.moveDisk,
    operation: { op: 'move-disk', slot, storage: target, deleteSource, sourceVolume: disk.volume },
  };
}

function growVerdict(
  book: PlanBook,
  wanted: IntendedDisk,
  storage: string | undefined,
  now: DiskView | undefined,
): Verdict {
  const slot = wanted.slot;
  const blocked = pendingRefusal(book, slot, now, 'grows');
  if (blocked) return blocked;
  const size = now!.sizeBytes ?? 0;
  if (wanted.sizeBytes < size)
    return refused(
      `${slot} is ${formatDiskSize(size)}; NetBox asks for ${formatDiskSize(wanted.sizeBytes)}: shrinking disks is not supported`,
      RULES.resize,
    );
  const full = storage === undefined ? undefined : book.ctx.room.claim(storage, wanted.sizeBytes - size);
  if (full) return refused(full, RULES.resize);
  return {
    class: 'live',
    why: book.ctx.running
      ? 'grown on the running VM (block_resize): the guest sees the new size'
      : 'grown (the VM is stopped)',
    rule: RULES.resize,
    operation: { op: 'resize-disk', slot, size: formatDiskSize(wanted.sizeBytes), sizeBytes: wanted.sizeBytes },
  };
}

function optionVerdict(
  book: PlanBook,
  delta: FieldDelta,
  key: string,
  wanted: IntendedDisk,
  now: DiskView | undefined,
): Verdict {
  const value = wanted.options[key];
  const operation = {
    op: 'set-disk-option' as const,
    slot: wanted.slot,
    key,
    ...(delta.want !== undefined && value !== undefined ? { value } : {}),
  };
  if (!now)
    return refused(
      `${wanted.slot} is not attached yet (pending until the next start): ferry changes it after the restart`,
      RULES.applyPending,
    );
  if (onlyPendingDiffers(delta)) return revertVerdict(operation);
  if (!book.ctx.running) return { class: 'live', why: STOPPED, rule: RULES.applyPending, operation };
  if (DISK_OPTIONS_AT_RESTART.has(key))
    return {
      class: 'at-restart',
      why: `a running VM takes a change of ${key} only at its next start`,
      rule: RULES.updateDisk,
      operation,
    };
  return {
    class: 'live',
    why: `${key} is written to the running VM's config at once`,
    rule: RULES.updateDisk,
    operation,
  };
}
