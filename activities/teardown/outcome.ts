import type { CleanupOutcome } from '../../src/domain/provisioning';
import type { WriteIntent } from '../write-intent';

/**
 * One removal, recorded before it is sent: gone now and started by an earlier attempt of this run
 * counts as removed by this run (its answer was lost), not as found absent.
 */
export async function removal(
  intent: WriteIntent,
  what: string,
  remove: () => Promise<boolean>,
): Promise<{ what: string; removed: boolean }> {
  intent.start(what);
  const removed = await remove();
  return { what, removed: removed || intent.startedEarlier(what) };
}

/** What one cleanup found for each of its objects. */
export function outcomeOf(
  cleanup: CleanupOutcome['cleanup'],
  results: Array<{ what: string; removed: boolean }>,
  nothing: string,
): CleanupOutcome {
  if (results.length === 0) return { cleanup, result: 'already-absent', detail: nothing };
  const removed = results.filter((r) => r.removed).map((r) => r.what);
  const absent = results.filter((r) => !r.removed).map((r) => r.what);
  return {
    cleanup,
    result: removed.length > 0 ? 'done' : 'already-absent',
    detail: [
      removed.length ? `removed ${removed.join(', ')}` : '',
      absent.length ? `already absent: ${absent.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join('; '),
  };
}
