import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { UsageError } from './errors';
import { z } from 'zod';
import { cutoverWindowSchema } from '../src/config/cutover-window';

/** A vSphere tag as a selection names it: `name` (any category) or `category/name`. */
export const TAG_SELECTION = /^[^/\s][^/]*(\/[^/\s][^/]*)?$/;
const TAG_SELECTION_MESSAGE =
  'a vSphere tag: "name" (in any category) or "category/name"; discovery refuses a tag vCenter does not have';

const selectionSchema = z
  .object({
    names: z.array(z.string().min(1)).min(1).optional(),
    folder: z.string().startsWith('/', 'an inventory path such as /DC0/vm/apps').optional(),
    cluster: z.string().min(1).optional(),
    tag: z.string().regex(TAG_SELECTION, TAG_SELECTION_MESSAGE).optional(),
  })
  .strict()
  .superRefine(
    (s, ctx) => {
      // Run even when a key has the wrong type, so every problem comes in one pass.
      if (typeof s !== 'object' || s === null) return; // the type error says it
      const given = (['names', 'folder', 'cluster', 'tag'] as const).filter((k) => s[k] !== undefined);
      if (given.length === 0) ctx.addIssue({ code: 'custom', message: 'select VMs by names, folder, cluster or tag' });
      if (s.names !== undefined && given.length > 1) {
        ctx.addIssue({
          code: 'custom',
          path: ['names'],
          message: `names select exact VMs: not together with ${given.filter((k) => k !== 'names').join(', ')} (folder, cluster and tag may be combined: VMs matching all)`,
        });
      }
    },
    { when: () => true },
  );

const waveFileSchema = z
  .object({
    waveId: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, 'letters, digits, dot, dash, underscore; up to 63'),
    selection: selectionSchema,
    maxConcurrent: z.number().int().min(1).max(1000).optional(),
    /** Approved cutovers start only inside it. */
    cutoverWindow: cutoverWindowSchema.optional(),
    /** Guest conversion for this wave's VMs: replaces migration.conversion.mode (its overrides still apply). */
    conversion: z
      .enum(['off', 'linux', 'all'], {
        message: "'off', 'linux' (Linux guests) or 'all' (Windows too; needs migration.conversion.virtioWin)",
      })
      .optional(),
  })
  .strict();

export type WaveFile = z.infer<typeof waveFileSchema>;
export type WaveFileSelection = z.infer<typeof selectionSchema>;

/** The same checks for a selection given by flags (`--names`, `--folder`, `--cluster`, `--tag`): each problem names its flag. */
export function selectionProblems(selection: WaveFileSelection): string[] {
  const result = selectionSchema.safeParse(selection);
  return result.success ? [] : result.error.issues.map((i) => `--${String(i.path[0] ?? 'names')}: ${i.message}`);
}

/** Reads a wave file (YAML), listing every problem with its key in one pass. */
export function readWaveFile(path: string): WaveFile {
  let document: unknown;
  try {
    document = parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const result = waveFileSchema.safeParse(document);
  if (!result.success) {
    const problems = result.error.issues.map((i) => {
      const message =
        i.code === 'unrecognized_keys' ? `unknown key(s) ${i.keys.map((k) => `"${k}"`).join(', ')}` : i.message;
      return `  - ${i.path.join('.') || '(top level)'}: ${message}`;
    });
    throw new UsageError(`${path} is not a valid wave file:\n${problems.join('\n')}`);
  }
  return result.data;
}
