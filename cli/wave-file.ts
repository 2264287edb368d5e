import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { UsageError } from './errors';
import { z } from 'zod';

const waveFileSchema = z
  .object({
    waveId: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, 'letters, digits, dot, dash, underscore; up to 63'),
    selection: z
      .object({
        names: z.array(z.string().min(1)).min(1).optional(),
        folder: z.string().startsWith('/').optional(),
        cluster: z.string().min(1).optional(),
        tag: z.string().min(1).optional(),
      })
      .strict()
      .refine((s) => Boolean(s.names || s.folder || s.cluster || s.tag), { message: 'select VMs by names, folder, cluster or tag' }),
    maxConcurrent: z.number().int().min(1).max(1000).optional(),
  })
  .strict();

export type WaveFile = z.infer<typeof waveFileSchema>;

/** Reads a wave file (YAML), listing every problem with its key. */
export function readWaveFile(path: string): WaveFile {
  let document: unknown;
  try {
    document = parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const result = waveFileSchema.safeParse(document);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `  - ${i.path.join('.') || '(top level)'}: ${i.message}`);
    throw new UsageError(`${path} is not a valid wave file:\n${problems.join('\n')}`);
  }
  return result.data;
}
