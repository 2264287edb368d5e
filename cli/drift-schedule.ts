import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  type Client,
  type ScheduleDescription,
  type ScheduleOptions,
} from '@temporalio/client';

/**
 * `ferry drift --schedule daily`: a Temporal Schedule `drift-<cluster>` that starts `driftReport` once
 * a day (each run's report stays in its history: `ferry status`, the UI). Created, or updated in place;
 * a rerun with the same settings changes nothing. `--unschedule` deletes it.
 */

export interface DriftScheduleSettings {
  cluster: string;
  tag?: string;
  /** When it runs each day, UTC. */
  at: { hour: number; minute: number };
  taskQueue: string;
}

export function driftScheduleId(cluster: string): string {
  return `drift-${cluster}`;
}

/** The schedule's spec and action: driftReport with the cluster and tag, daily at the time, on the worker's queue. */
export function driftScheduleOptions(s: DriftScheduleSettings): Omit<ScheduleOptions, 'scheduleId'> {
  const args = [{ cluster: s.cluster, ...(s.tag ? { tag: s.tag } : {}) }];
  return {
    spec: {
      calendars: [{ hour: s.at.hour, minute: s.at.minute, comment: 'ferry drift, daily' }],
      timezone: 'UTC',
    },
    action: {
      type: 'startWorkflow',
      workflowType: 'driftReport',
      workflowId: driftScheduleId(s.cluster),
      taskQueue: s.taskQueue,
      args,
      staticSummary: `ferry drift --cluster ${s.cluster}${s.tag ? ` --tag ${s.tag}` : ''} (daily)`,
    },
  };
}

/** A single value of a described calendar field (`[{ start: 6, end: 6 }]`), or undefined for anything else. */
function single(ranges: ReadonlyArray<{ start: number; end?: number }> | undefined): number | undefined {
  if (ranges?.length !== 1) return undefined;
  const [r] = ranges;
  return r!.end === undefined || r!.end === r!.start ? r!.start : undefined;
}

/** Whether a described schedule already runs driftReport exactly as asked (then nothing is written). */
export function driftScheduleMatches(described: ScheduleDescription, s: DriftScheduleSettings): boolean {
  const action = described.action;
  const wanted = driftScheduleOptions(s).action;
  const calendars = described.spec.calendars ?? [];
  return (
    action.type === 'startWorkflow' &&
    action.workflowType === wanted.workflowType &&
    action.taskQueue === wanted.taskQueue &&
    JSON.stringify(action.args) === JSON.stringify(wanted.args) &&
    calendars.length === 1 &&
    (described.spec.intervals ?? []).length === 0 &&
    single(calendars[0]!.hour) === s.at.hour &&
    single(calendars[0]!.minute) === s.at.minute &&
    (described.spec.timezone ?? 'UTC') === 'UTC'
  );
}

/** Creates the schedule, or updates the existing one in place; `unchanged` when it already matches. */
export async function scheduleDrift(
  client: Client,
  s: DriftScheduleSettings,
): Promise<'created' | 'updated' | 'unchanged'> {
  const scheduleId = driftScheduleId(s.cluster);
  const options = driftScheduleOptions(s);
  try {
    await client.schedule.create({ scheduleId, ...options });
    return 'created';
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  const handle = client.schedule.getHandle(scheduleId);
  if (driftScheduleMatches(await handle.describe(), s)) return 'unchanged';
  await handle.update((previous) => ({ ...previous, spec: options.spec, action: options.action }));
  return 'updated';
}

/** Deletes the schedule (runs it started are kept); `absent` when there is none. */
export async function unscheduleDrift(client: Client, cluster: string): Promise<'deleted' | 'absent'> {
  try {
    await client.schedule.getHandle(driftScheduleId(cluster)).delete();
    return 'deleted';
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) return 'absent';
    throw err;
  }
}
