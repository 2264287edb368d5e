import { z } from 'zod';
import type { HaSettings } from '../domain/migration/ha';

/**
 * `migration.ha`: after a verified cutover the VM becomes an HA resource; a rollback takes it out again.
 * `group` is PVE 8's HA group, `rule` PVE 9's HA rule (groups became node-affinity rules there); which
 * one fits is checked against the cluster when the VM registers (src/domain/migration/ha.ts).
 */
const configId = z
  .string()
  .regex(/^[a-z][a-z0-9_-]+$/i, 'a PVE configuration id (a letter, then letters, digits, - or _), e.g. prod');

export const haSection = z
  .object({
    group: configId.optional(),
    rule: configId.optional(),
    state: z.enum(['started', 'stopped']).default('started'),
    maxRestart: z.number().int().min(0).optional(),
    maxRelocate: z.number().int().min(0).optional(),
  })
  .strict()
  .refine((h) => h.group === undefined || h.rule === undefined, {
    message: 'give group (PVE 8) or rule (PVE 9), not both',
  });

export const haKeys = {
  /** Register migrated VMs as HA resources (absent: ferry leaves HA alone). */
  ha: haSection.optional(),
};

export function haSettings(ha: z.output<typeof haSection> | undefined): { ha?: HaSettings } {
  if (!ha) return {};
  return {
    ha: {
      state: ha.state,
      ...(ha.group !== undefined ? { group: ha.group } : {}),
      ...(ha.rule !== undefined ? { rule: ha.rule } : {}),
      ...(ha.maxRestart !== undefined ? { maxRestart: ha.maxRestart } : {}),
      ...(ha.maxRelocate !== undefined ? { maxRelocate: ha.maxRelocate } : {}),
    },
  };
}
