import { z } from 'zod';
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

const value = z.string().nullable();

export const baselineSchema = z
  .object({
    version: z.literal(1),
    applied: z.record(z.string(), value).default({}),
    accepted: z.record(z.string(), z.object({ netbox: value, proxmox: value }).strict()).default({}),
  })
  .strict();

export type BaselineResult = { ok: true; baseline: Baseline | undefined } | { ok: false; problem: string };

/** The stored baseline (null or absent: none yet), or what is wrong with it. */
export function parseBaseline(stored: unknown): BaselineResult {
  if (stored === null || stored === undefined) return { ok: true, baseline: undefined };
  const parsed = baselineSchema.safeParse(stored);
  if (parsed.success) return { ok: true, baseline: parsed.data };
  const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(top level)'}: ${i.message}`);
  return { ok: false, problem: `custom field ferry_applied is not a ferry baseline: ${issues.join('; ')}` };
}

/** No entry: the field has no baseline. */
export const NO_BASELINE = Symbol('no baseline');

export function baselineValue(baseline: Baseline, id: string): FieldValue | typeof NO_BASELINE {
  if (!(id in baseline.applied)) return NO_BASELINE;
  return baseline.applied[id] ?? undefined;
}

export const toStored = (v: FieldValue): string | null => v ?? null;
