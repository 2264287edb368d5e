/**
 * How long to wait before asking again whether a remote task (PVE UPID, vCenter Task) has finished:
 * a twentieth of the time it has run so far, between `minMs` and `maxMs`. A task is then noticed at most
 * ~5 % (or `minMs`) after it ends, on average half that: a 3 s task costs ~48 polls and is seen ~75 ms
 * late (a tenth cost ~36 polls and ~150 ms, and each late notice holds a global permit that long).
 */
export function nextPollDelay(elapsedMs: number, maxMs: number, minMs = 40): number {
  return Math.min(maxMs, Math.max(minMs, Math.round(elapsedMs / 20)));
}
