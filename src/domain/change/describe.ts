import { formatDiskSize } from '../pve-disk-size';
import type { PlannedChange } from './change';
import type { FieldKind } from './fields';
import type { ChangeOutcome } from './verify';

/** One line per change, for the CLI, the journal entry and the workflow's status. */

const SIDE: Record<PlannedChange['side'], string> = {
  netbox: 'NetBox',
  proxmox: 'by hand in Proxmox',
  both: 'both sides',
};

/** A value as a person reads it: MiB, sizes with their unit, on/off for flags. */
export function formatChangeValue(kind: FieldKind, value: string | undefined): string {
  if (kind === 'disk' || kind === 'nic') return value === undefined ? 'absent' : 'present';
  if (kind === 'nic.link_down') return value === undefined ? 'up' : 'down';
  if (kind === 'nic.firewall') return value === undefined ? 'off' : 'on';
  if (value === undefined) return 'none';
  if (kind === 'memory') return `${value} MiB`;
  if (kind === 'disk.size') return formatDiskSize(Number(value));
  if (kind === 'nic.rate') return `${value} MB/s`;
  return value;
}

/** `memory: 2048 MiB → 4096 MiB [live, NetBox] memory hotplug is on (with NUMA): DIMMs are hot-added` */
export function describeChange(change: PlannedChange): string {
  const from = formatChangeValue(change.kind, change.from);
  const to = formatChangeValue(change.kind, change.to);
  const pending = change.pendingDelete
    ? ' (pending: removed)'
    : change.pending !== undefined
      ? ` (pending: ${formatChangeValue(change.kind, change.pending)})`
      : '';
  const held = change.alreadyPending ? ', already pending' : '';
  return `${change.id}: ${from}${pending} → ${to} [${change.class}${held}, ${SIDE[change.side]}] ${change.why}`;
}

/** `memory: applied-live (Proxmox has it, nothing pending)` */
export function describeOutcome(outcome: ChangeOutcome): string {
  return `${outcome.id}: ${outcome.outcome} (${outcome.detail})`;
}
