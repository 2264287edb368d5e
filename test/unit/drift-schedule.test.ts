import type { ScheduleDescription } from '@temporalio/client';
import { parseDailyTime } from '../../cli/at-time';
import { driftActionOf } from '../../cli/commands/drift';
import { driftScheduleMatches, driftScheduleOptions } from '../../cli/drift-schedule';
import { UsageError } from '../../cli/errors';

const SETTINGS = { cluster: 'pve-lab', tag: 'web', at: { hour: 6, minute: 0 }, taskQueue: 'ferry' };

/** A schedule as Temporal describes one created from these options (ranges for calendar fields). */
function described(over: { hour?: number; minute?: number; args?: unknown[]; taskQueue?: string } = {}) {
  const options = driftScheduleOptions(SETTINGS);
  return {
    spec: {
      calendars: [
        {
          hour: [{ start: over.hour ?? 6, end: over.hour ?? 6, step: 1 }],
          minute: [{ start: over.minute ?? 0, end: over.minute ?? 0, step: 1 }],
        },
      ],
      timezone: 'UTC',
    },
    action: {
      ...options.action,
      args: over.args ?? options.action.args,
      taskQueue: over.taskQueue ?? options.action.taskQueue,
    },
  } as unknown as ScheduleDescription;
}

describe('ferry drift --schedule daily: flags, the schedule and when it already matches', () => {
  it('reads --at as HH:MM (UTC) and names what is wrong', () => {
    expect(parseDailyTime('06:30')).toEqual({ hour: 6, minute: 30 });
    expect(parseDailyTime(' 0:05 ')).toEqual({ hour: 0, minute: 5 });
    expect(parseDailyTime('23:59')).toEqual({ hour: 23, minute: 59 });
    for (const bad of ['24:00', '12:60', '6', '06:3', 'noon', '-1:00'])
      expect(() => parseDailyTime(bad)).toThrow(
        new UsageError(`--at: "${bad}" is not a time of day as HH:MM (00:00 to 23:59, UTC), e.g. --at 06:30`),
      );
  });

  it('the flags make a report, a schedule (default 06:00) or its removal; anything else is a usage error', () => {
    expect(driftActionOf({ cluster: 'c1', tag: 't' })).toEqual({ kind: 'report', cluster: 'c1', tag: 't' });
    expect(driftActionOf({ cluster: 'c1', schedule: 'daily' })).toEqual({
      kind: 'schedule',
      cluster: 'c1',
      at: { hour: 6, minute: 0 },
    });
    expect(driftActionOf({ cluster: 'c1', unschedule: true })).toEqual({ kind: 'unschedule', cluster: 'c1' });
    expect(() => driftActionOf({})).toThrow(UsageError);
    expect(() => driftActionOf({ cluster: ' ' })).toThrow('say which cluster');
    expect(() => driftActionOf({ cluster: 'c1', schedule: 'hourly' })).toThrow('"hourly" is not known');
    expect(() => driftActionOf({ cluster: 'c1', schedule: 'daily', json: true })).toThrow('--json goes with a report');
    expect(() => driftActionOf({ cluster: 'c1', at: '06:00' })).toThrow('--at goes with --schedule daily');
    expect(() => driftActionOf({ cluster: 'c1', unschedule: true, schedule: 'daily' })).toThrow(
      '--unschedule takes only',
    );
  });

  it('the schedule starts driftReport with the cluster and tag, daily at the time in UTC, id drift-<cluster>', () => {
    expect(driftScheduleOptions(SETTINGS)).toMatchObject({
      spec: { calendars: [{ hour: 6, minute: 0 }], timezone: 'UTC' },
      action: {
        type: 'startWorkflow',
        workflowType: 'driftReport',
        workflowId: 'drift-pve-lab',
        taskQueue: 'ferry',
        args: [{ cluster: 'pve-lab', tag: 'web' }],
      },
    });
    expect(driftScheduleOptions({ ...SETTINGS, tag: undefined }).action.args).toEqual([{ cluster: 'pve-lab' }]);
  });

  it('a described schedule matches only when time, arguments and queue are the same', () => {
    expect(driftScheduleMatches(described(), SETTINGS)).toBe(true);
    expect(driftScheduleMatches(described({ hour: 7 }), SETTINGS)).toBe(false);
    expect(driftScheduleMatches(described({ minute: 30 }), SETTINGS)).toBe(false);
    expect(driftScheduleMatches(described({ args: [{ cluster: 'pve-lab' }] }), SETTINGS)).toBe(false);
    expect(driftScheduleMatches(described({ taskQueue: 'other' }), SETTINGS)).toBe(false);
  });
});
