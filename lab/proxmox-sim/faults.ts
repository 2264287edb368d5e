import { z } from 'zod';
import { seededRandom } from './prng';

/**
 * Fault injection, deterministic from a seed: every API request draws the same number of values from
 * one seeded sequence, so the same seed and the same request sequence give the same faults.
 */
const rate = z.number().min(0).max(1);
export const faultSettingsSchema = z
  .object({
    seed: z.number().int(),
    /** Added latency, skewed towards `min` (most requests fast, a tail of slow ones). */
    latencyMs: z
      .object({ min: z.number().int().min(0), max: z.number().int().min(0) })
      .strict()
      .optional(),
    /** Share of requests answered 500/502/503 without being processed. */
    errorRate: rate.default(0),
    /** Share of requests whose connection is closed without an answer: half before, half after processing. */
    dropRate: rate.default(0),
    /** Share of writes to a VM refused with "VM N is locked (backup)". */
    lockRate: rate.default(0),
    /** Share of started tasks that fail ("task failed (fault injected …)") without doing their work. */
    taskFailureRate: rate.default(0),
    /** Only requests whose path (below /api2/json) matches this regular expression are affected. */
    pathPattern: z.string().optional(),
  })
  .strict();
export type FaultSettings = z.input<typeof faultSettingsSchema>;

export type FaultOutcome = 'none' | 'error' | 'drop-before' | 'drop-after' | 'locked';

export interface FaultDecision {
  latencyMs: number;
  outcome: FaultOutcome;
  /** For `error`: the status to answer. */
  status?: number;
  failTask: boolean;
}

const NONE: FaultDecision = { latencyMs: 0, outcome: 'none', failTask: false };
const ERROR_STATUSES = [500, 502, 503];

export class FaultInjector {
  private settings?: z.output<typeof faultSettingsSchema>;
  private random: () => number = Math.random;
  private pathRe?: RegExp;

  set(settings: FaultSettings | undefined): void {
    if (!settings) {
      this.settings = undefined;
      return;
    }
    this.settings = faultSettingsSchema.parse(settings);
    this.random = seededRandom(this.settings.seed);
    this.pathRe = this.settings.pathPattern ? new RegExp(this.settings.pathPattern) : undefined;
  }

  get current() {
    return this.settings;
  }

  decide(method: string, path: string): FaultDecision {
    const s = this.settings;
    if (!s || (this.pathRe && !this.pathRe.test(path))) return NONE;
    const [rLatency, rOutcome, rKind, rTask, rStatus] = [
      this.random(),
      this.random(),
      this.random(),
      this.random(),
      this.random(),
    ];
    const latencyMs = s.latencyMs
      ? Math.round(s.latencyMs.min + (s.latencyMs.max - s.latencyMs.min) * rLatency ** 3)
      : 0;
    const write = method !== 'GET';
    const vmWrite = write && /^\/nodes\/[^/]+\/qemu\/\d+/.test(path);
    let outcome: FaultOutcome = 'none';
    let status: number | undefined;
    let threshold = s.errorRate;
    if (rOutcome < threshold) {
      outcome = 'error';
      status = ERROR_STATUSES[Math.floor(rStatus * ERROR_STATUSES.length)];
    } else if (rOutcome < (threshold += s.dropRate)) {
      outcome = rKind < 0.5 ? 'drop-before' : 'drop-after';
    } else if (vmWrite && rOutcome < (threshold += s.lockRate)) {
      outcome = 'locked';
    }
    return { latencyMs, outcome, status, failTask: write && rTask < s.taskFailureRate };
  }
}
