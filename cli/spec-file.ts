import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { UsageError } from './errors';
import { validateSpec, type ProvisionSpec } from '../src/domain/provisioning';

/**
 * Reads a VM spec (YAML or JSON) and validates it the way the workflow will, so a bad spec is
 * refused here with every problem listed, before anything starts.
 */
export function readSpecFile(path: string): ProvisionSpec {
  let document: unknown;
  try {
    document = parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const checked = validateSpec(document, path);
  if (!checked.ok)
    throw new UsageError(`${path} is not a valid VM spec:\n${checked.problems.map((p) => `  - ${p}`).join('\n')}`);
  return checked.spec;
}
