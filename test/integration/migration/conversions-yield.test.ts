import { spawn, type ChildProcess } from 'node:child_process';
import type { temporal } from '@temporalio/proto';
import type { migrationWave } from '../../../workflows/migration-wave';
import { approveWaveUpdate, waveStatusQuery } from '../../../src/domain/messages';
import { CONVERSION_MARKER } from '../../../src/conversion/yield-to-cutovers';
import { DOWNTIME_PRIORITY } from '../../../src/domain/task-queues';
import { readWaveOutcome } from '../../../lab/wave-result';
import { labWorkers, useMigrationLab } from '../../helpers/migration-lab';
import { processState } from '../../helpers/processes';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const ms = (t: HistoryEvent['eventTime']) => Number(t!.seconds) * 1000 + Math.floor((t!.nanos ?? 0) / 1e6);

/**
 * Conversions yield to cutovers, end to end: a migration's quick downtime steps schedule their activities at
 * the downtime priority (in the history, for every view of it), and the worker that runs them pauses
 * the conversion processes it started (here a stand-in process carrying the worker's marker) from the
 * shutdown to the end of the cutover, and not before or long after.
 */
describe('a cutover pauses the conversions of the worker that runs it', () => {
  jest.setTimeout(240_000);
  const suite = useMigrationLab();
  let conversion: ChildProcess | undefined;
  afterAll(() => conversion?.kill('SIGKILL'));

  it('runs shutdown to the end of its cutover at the downtime priority, with the conversions paused meanwhile', async () => {
    expect(suite.lab.deps.conversionYield).toBeDefined();
    conversion = spawn('sleep', ['600'], {
      env: { ...process.env, [CONVERSION_MARKER]: String(process.pid) },
      stdio: 'ignore',
    });
    const samples: Array<{ at: number; stopped: boolean }> = [];
    const sampler = setInterval(
      () => samples.push({ at: Date.now(), stopped: processState(conversion!.pid!) === 'T' }),
      10,
    );

    const workers = await labWorkers(suite.temporal.nativeConnection, suite.lab.deps);
    let approvedAt = 0;
    const vmWorkflow = await workers.run(async () => {
      const handle = await suite.temporal.client.workflow.start<typeof migrationWave>('migrationWave', {
        taskQueue: workers.taskQueue,
        workflowId: `${workers.taskQueue}-wave`,
        args: [{ waveId: workers.taskQueue, selection: { names: ['mig-web01'] } }],
      });
      for (let i = 0; ; i++) {
        const status = await handle.query(waveStatusQuery);
        if (status.vms[0]?.stage === 'awaiting-approval') break;
        if (i > 600) throw new Error(`the VM never reached approval: ${JSON.stringify(status)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      // Nothing of the run so far (validation, the shell) paused the conversion.
      expect(samples.length).toBeGreaterThan(10);
      expect(samples.some((s) => s.stopped)).toBe(false);
      approvedAt = Date.now();
      await handle.executeUpdate(approveWaveUpdate, { args: [{ by: 'alice', reason: 'yield test' }] });
      const outcome = await readWaveOutcome(suite.temporal.client, handle);
      expect(outcome.status.vms).toEqual([expect.objectContaining({ name: 'mig-web01', outcome: 'migrated' })]);
      return (await handle.query(waveStatusQuery)).vms[0]!.workflowId;
    });
    // The linger (2 s) after the last downtime activity, then it goes on.
    await new Promise((r) => setTimeout(r, 3_000));
    clearInterval(sampler);
    expect(processState(conversion.pid!)).not.toBe('T');

    const { history } = await suite.temporal.client.workflowService.getWorkflowExecutionHistory({
      namespace: suite.temporal.client.options.namespace,
      execution: { workflowId: vmWorkflow },
    });
    const events = history?.events ?? [];
    const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes);
    const typeOf = (e: HistoryEvent) => e.activityTaskScheduledEventAttributes!.activityType!.name!;
    const keyOf = (e: HistoryEvent) => e.activityTaskScheduledEventAttributes!.priority?.priorityKey ?? undefined;
    const shutdownAt = scheduled.findIndex((e) => typeOf(e) === 'shutdownGuest');
    expect(shutdownAt).toBeGreaterThan(0);
    // Before the shutdown: the default priority; from the shutdown on, the downtime's steps at key 1.
    expect(scheduled.slice(0, shutdownAt).map(keyOf)).toEqual(scheduled.slice(0, shutdownAt).map(() => undefined));
    const downtime = scheduled.filter((e) => keyOf(e) === DOWNTIME_PRIORITY.priorityKey).map(typeOf);
    expect(downtime[0]).toBe('shutdownGuest');
    expect(downtime).toEqual(expect.arrayContaining(['shutdownGuest', 'diskSizes', 'setBootOrder']));
    // The import's copy is not the worker's work (it runs on the node): it keeps the default priority.
    const imports = scheduled.filter((e) => typeOf(e) === 'importDisk').map(keyOf);
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.every((k) => k === undefined)).toBe(true);

    // The conversion was stopped from the shutdown to the cutover's end, and not before the approval.
    const stopped = samples.filter((s) => s.stopped);
    expect(stopped.length).toBeGreaterThan(0);
    const shutdownStarted = ms(
      events.find(
        (e) =>
          e.activityTaskStartedEventAttributes?.scheduledEventId?.toString() ===
          scheduled[shutdownAt]!.eventId!.toString(),
      )!.eventTime,
    );
    const lastDowntimeEnd = Math.max(
      ...events
        .filter((e) => e.activityTaskCompletedEventAttributes)
        .filter((e) => {
          const id = e.activityTaskCompletedEventAttributes!.scheduledEventId!.toString();
          const s = scheduled.find((x) => x.eventId!.toString() === id)!;
          return keyOf(s) === DOWNTIME_PRIORITY.priorityKey;
        })
        .map((e) => ms(e.eventTime)),
    );
    expect(stopped[0]!.at).toBeGreaterThanOrEqual(approvedAt);
    expect(stopped[0]!.at).toBeGreaterThanOrEqual(shutdownStarted - 50);
    expect(stopped.at(-1)!.at).toBeGreaterThanOrEqual(lastDowntimeEnd - 50);
    expect(stopped.at(-1)!.at).toBeLessThanOrEqual(lastDowntimeEnd + 2_000 + 1_000);
    const totals = suite.lab.deps.conversionYield!.totals();
    expect(totals.pauses).toBeGreaterThanOrEqual(1);
  });
});
