import { z } from 'zod';
import { FIELD_KINDS, type FieldKind } from './fields';

/**
 * What ferry does with a difference it did not cause, and with the disks a change leaves behind
 * (ferry.yaml `change`, validated here; src/config/change.ts puts it in the config).
 *
 * - `handDrift`: a field changed in Proxmox by hand (NetBox did not move): `report` (change nothing),
 *   `netbox` (put NetBox's value back) or `proxmox` (keep the hand change until NetBox's value moves);
 *   a default and a choice per field kind.
 * - `conflict`: both moved, to different values: `report`, or `netbox` (NetBox's value wins).
 * - `allowMacChange`: a NIC's MAC changes only when NetBox's MAC itself changed and this is on (the
 *   guest sees a new NIC); never to undo a hand change.
 * - `movedDiskSource`: after a move, the source volume stays as unusedN (`keep`) or is deleted.
 * - `removedDisk`: a disk gone from NetBox is detached to unusedN; deleting one needs an approval, never a plan.
 */
export const HAND_DRIFT_CHOICES = ['report', 'netbox', 'proxmox'] as const;
export type HandDriftChoice = (typeof HAND_DRIFT_CHOICES)[number];

/** Checks run even when a value has the wrong type: every problem in one pass. */
const EVERY_PROBLEM = { when: () => true } as const;

const handDriftChoice = z.enum(HAND_DRIFT_CHOICES, { error: `one of ${HAND_DRIFT_CHOICES.join(', ')}` });

export const changePolicySchema = z
  .object({
    handDrift: z
      .object({
        default: handDriftChoice.default('report'),
        fields: z
          .record(z.string(), handDriftChoice)
          .superRefine((fields, ctx) => {
            for (const kind of Object.keys(fields))
              if (!(FIELD_KINDS as readonly string[]).includes(kind))
                ctx.addIssue({
                  code: 'custom',
                  path: [kind],
                  message: `not a field kind; one of ${FIELD_KINDS.join(', ')}`,
                });
          }, EVERY_PROBLEM)
          .transform((fields) => fields as Partial<Record<FieldKind, HandDriftChoice>>)
          .default({}),
      })
      .strict()
      .default({ default: 'report', fields: {} }),
    conflict: z.enum(['report', 'netbox'], { error: 'report or netbox' }).default('report'),
    allowMacChange: z.boolean().default(false),
    movedDiskSource: z.enum(['keep', 'delete'], { error: 'keep or delete' }).default('keep'),
    removedDisk: z
      .literal('detach', { error: 'detach (a removed disk is kept as unusedN; deleting it needs an approval)' })
      .default('detach'),
  })
  .strict();

export type ChangePolicy = z.output<typeof changePolicySchema>;
export type ChangePolicyInput = z.input<typeof changePolicySchema>;

export const DEFAULT_CHANGE_POLICY: ChangePolicy = changePolicySchema.parse({});

/** The hand-drift choice for a field kind. */
export function handDriftFor(policy: ChangePolicy, kind: FieldKind): HandDriftChoice {
  return policy.handDrift.fields[kind] ?? policy.handDrift.default;
}
