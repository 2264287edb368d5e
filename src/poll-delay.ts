/**
 * How long to wait before asking again whether a remote task (PVE UPID, vCenter Task) has finished:
 * a tenth of the time it has run so far, between `minMs` and `maxMs`. A task is then noticed at most
 * ~10 % (or `minMs`) after it ends, without asking a long task more than about once a second.
 */
export function nextPollDelay(elapsedMs: number, maxMs: number, minMs = 25): number {
  return Math.min(maxMs, Math.max(minMs, Math.round(elapsedMs / 10)));
}
