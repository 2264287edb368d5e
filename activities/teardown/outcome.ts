import type { CleanupOutcome } from '../../src/domain/provisioning';

/** What one cleanup found for each of its objects. */
export function outcomeOf(cleanup: CleanupOutcome['cleanup'], results: Array<{ what: string; removed: boolean }>, nothing: string): CleanupOutcome {
  if (results.length === 0) return { cleanup, result: 'already-absent', detail: nothing };
  const removed = results.filter((r) => r.removed).map((r) => r.what);
  const absent = results.filter((r) => !r.removed).map((r) => r.what);
  return {
    cleanup,
    result: removed.length > 0 ? 'done' : 'already-absent',
    detail: [removed.length ? `removed ${removed.join(', ')}` : '', absent.length ? `already absent: ${absent.join(', ')}` : ''].filter(Boolean).join('; '),
  };
}
