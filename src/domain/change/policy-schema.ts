import { z } from 'zod';
import { FIELD_KINDS, type FieldKind } from './fields';
import { HAND_DRIFT_CHOICES, type ChangePolicy, type HandDriftChoice } from './policy';

/** The change policy as ferry.yaml gives it (policy.ts says what each key means), with its defaults. */

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
  .strict() satisfies z.ZodType<ChangePolicy, unknown>;

export type ChangePolicyInput = z.input<typeof changePolicySchema>;

export const DEFAULT_CHANGE_POLICY: ChangePolicy = changePolicySchema.parse({});
