import { z } from 'zod';
import type { Baseline } from './baseline';

/** The baseline as stored in NetBox (`ferry_applied`), checked when read back. */
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
