import type { PermitOptions } from '../permits';
import { withPermit } from '../permits';

/** What a run shows while it waits for a permit. */
export interface WaitingRun {
  beginWait(what: string): () => void;
}

/**
 * Runs `fn` holding a permit of a global limit (workflows/permits.ts). From the request until the grant,
 * the run's status and the UI's details say it waits for that permit; the wait is recorded as it ends.
 */
export async function underPermit<T>(run: WaitingRun, options: PermitOptions, fn: () => Promise<T>): Promise<T> {
  let endWait: (() => void) | undefined;
  try {
    return await withPermit(
      options,
      () => {
        endWait?.();
        return fn();
      },
      () => (endWait = run.beginWait(`a permit of ${options.key} (${options.label})`)),
    );
  } finally {
    endWait?.(); // a cancel while still waiting
  }
}
