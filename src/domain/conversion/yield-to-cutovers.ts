/**
 * Conversions yield to cutovers on their host: while a VM's downtime work runs in a worker (an activity
 * a cutover scheduled at the downtime priority), the conversions that worker runs are paused, so a
 * cutover of seconds never shares its CPU with a conversion of minutes. The rules, apart from the
 * signals that carry them out (src/conversion/yield-to-cutovers.ts).
 */
export interface YieldPolicy {
  /**
   * How long conversions stay paused after the last downtime activity ended: between two steps of one
   * VM's cutover (a workflow task) its downtime has not ended.
   */
  lingerMs: number;
  /**
   * The longest one pause lasts. Then conversions run at least as long before they pause again: a long
   * wave of cutovers never starves them (they keep at least half of their time).
   */
  atMostMs: number;
}

export const DEFAULT_YIELD_LINGER_MS = 2_000;

export interface YieldState {
  /** Downtime activities running now. */
  holders: number;
  /** When the last of them ended (the linger counts from there). */
  lastReleaseAt?: number;
  /** Since when the conversions are paused; absent while they run. */
  pausedSince?: number;
  /** After a pause reached `atMostMs`, the conversions run at least until then. */
  runUntil?: number;
}

export const YIELD_START: YieldState = { holders: 0 };

export type YieldEvent = 'hold' | 'release' | 'tick';

export interface YieldDecision {
  state: YieldState;
  /** What to do to the conversions now, if anything. */
  action?: 'pause' | 'resume';
  /** When to decide again with a `tick` (a linger or a pause's cap ends), if the state can change by itself. */
  recheckAt?: number;
}

/** The next state after `event` at `now`, and what to do to the conversions. */
export function nextYield(policy: YieldPolicy, state: YieldState, event: YieldEvent, now: number): YieldDecision {
  const s: YieldState = { ...state };
  if (event === 'hold') s.holders += 1;
  if (event === 'release' && s.holders > 0) {
    s.holders -= 1;
    if (s.holders === 0) s.lastReleaseAt = now;
  }
  const lingerEnds = s.holders === 0 && s.lastReleaseAt !== undefined ? s.lastReleaseAt + policy.lingerMs : undefined;
  const wanted = s.holders > 0 || (lingerEnds !== undefined && now < lingerEnds);
  const earliest = (...times: Array<number | undefined>) => {
    const set = times.filter((t): t is number => t !== undefined);
    return set.length > 0 ? Math.min(...set) : undefined;
  };

  if (s.pausedSince !== undefined) {
    const capEnds = s.pausedSince + policy.atMostMs;
    if (wanted && now < capEnds) return { state: s, recheckAt: earliest(capEnds, lingerEnds) };
    delete s.pausedSince;
    if (!wanted) return { state: s, action: 'resume' };
    s.runUntil = now + policy.atMostMs;
    return { state: s, action: 'resume', recheckAt: s.runUntil };
  }
  if (!wanted) return { state: s };
  if (s.runUntil !== undefined && now < s.runUntil) return { state: s, recheckAt: s.runUntil };
  delete s.runUntil;
  s.pausedSince = now;
  return { state: s, action: 'pause', recheckAt: earliest(now + policy.atMostMs, lingerEnds) };
}
