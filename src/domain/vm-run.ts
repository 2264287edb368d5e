import type { WaitRecord } from './waits';

/** When a run entered a stage and, once it moved on, when it left it. */
export interface StageTiming<Stage extends string = string> {
  stage: Stage;
  startedAt: number;
  endedAt?: number;
}

/** What every VM workflow's status has, whatever its family: where it is, how long each stage took, what it waited for. */
export interface VmRunStatus<Stage extends string> {
  stage: Stage;
  timings: Array<StageTiming<Stage>>;
  waits: WaitRecord[];
  /** What the run waits for right now (a person, a permit, a window), with since when; none while it works. */
  waiting?: { for: string; since: number };
  error?: string;
}

/** The run moves to `stage` at `now`: the stage it was in ends, the new one begins. */
export function enterStage<Stage extends string>(status: VmRunStatus<Stage>, stage: Stage, now: number): void {
  const open = status.timings.at(-1);
  if (open && open.endedAt === undefined) open.endedAt = now;
  status.timings.push({ stage, startedAt: now });
  status.stage = stage;
}

/** A final stage (done, refused, …) is a mark, not a span: it ends as it begins. */
export function closeStage<Stage extends string>(status: VmRunStatus<Stage>): void {
  const last = status.timings.at(-1);
  if (last && last.endedAt === undefined) last.endedAt = last.startedAt;
}

/** How long `stage` took, in seconds, when it ran and ended. */
export function stageSeconds<Stage extends string>(
  timings: ReadonlyArray<StageTiming<Stage>> | undefined,
  stage: Stage,
): number | undefined {
  const timing = timings?.find((t) => t.stage === stage);
  return timing?.endedAt !== undefined ? (timing.endedAt - timing.startedAt) / 1000 : undefined;
}

/** The UI's one line for a run: who, where, and what it waits for since when. */
export function runDetails(
  who: string,
  status: Pick<VmRunStatus<string>, 'stage' | 'waiting'> & { ignored?: readonly IgnoredMessage[] },
): string {
  const waiting = status.waiting
    ? `; waiting for ${status.waiting.for} since ${new Date(status.waiting.since).toISOString().slice(11, 19)} UTC`
    : '';
  return `${who}: ${status.stage}${waiting}${ignoredDetails(status.ignored ?? [])}`;
}

/** A message the workflow heard and did not act on (a refused update, an ignored signal), and why. */
export interface IgnoredMessage {
  message: string;
  reason: string;
}

/**
 * The UI's line for messages not acted on, so an ignored approval does not pass for any other "Signaled"
 * event: how many, and the last with its reason.
 */
export function ignoredDetails(ignored: readonly IgnoredMessage[]): string {
  const last = ignored.at(-1);
  if (!last) return '';
  const count = ignored.length === 1 ? 'ignored' : `${ignored.length} ignored, the last`;
  return `; ${count}: ${last.message}: ${last.reason}`;
}
