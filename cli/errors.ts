import { CommanderError } from 'commander';
import { ConfigError } from '../src/config/config-error';

/** The command line asks for something inconsistent: exit code 2, like a flag commander refuses. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** ferry's exit codes: 0 done, 1 the work failed (or was refused), 2 usage or configuration error. */
export function exitCodeFor(err: unknown): number {
  if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
  if (err instanceof UsageError || err instanceof ConfigError) return 2;
  return 1;
}
