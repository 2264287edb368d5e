import type { FieldValue } from './fields';

/**
 * The managed fields as ferry last left them, by change id (`memory`, `scsi1.size`, `net0.tag`): what
 * tells a NetBox edit from a hand change in Proxmox. The workflow stores it in the NetBox VM's custom
 * field `ferry_applied` after each apply. `applied`: the value ferry made (null: not set). `accepted`:
 * hand changes the policy keeps (handDrift `proxmox`), with both sides' values then.
 */
export interface Baseline {
  version: 1;
  applied: Record<string, string | null>;
  accepted: Record<string, { netbox: string | null; proxmox: string | null }>;
}

export const EMPTY_BASELINE: Baseline = { version: 1, applied: {}, accepted: {} };

/** No entry: the field has no baseline. */
export const NO_BASELINE = Symbol('no baseline');

export function baselineValue(baseline: Baseline, id: string): FieldValue | typeof NO_BASELINE {
  if (!(id in baseline.applied)) return NO_BASELINE;
  return baseline.applied[id] ?? undefined;
}

export const toStored = (v: FieldValue): string | null => v ?? null;
