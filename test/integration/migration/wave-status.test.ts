import { waveSummaryQuery } from '../../../src/domain/messages';
import type { migrationWave } from '../../../workflows/migration-wave';
import { loadStatus } from '../../../cli/status-view/load';
import { renderStatus } from '../../../cli/status-view/render-status';
import { labWorkers, useMigrationLab } from '../../helpers/migration-lab';
import { until } from '../../helpers/wait';

/**
 * `ferry status <wave>` when the wave's own query is slow (its worker busy with 1,000 VM workflows):
 * after its budget it answers from visibility, with the same counts per stage as the wave's summary.
 */
describe('a wave whose query does not answer in time', () => {
  jest.setTimeout(240_000);
  const suite = useMigrationLab();

  it('is summarized from its VM workflows in visibility: stages, rows, and a line saying where it came from', async () => {
    const workers = await labWorkers(suite.temporal.nativeConnection, suite.lab.deps);
    const { client } = suite.temporal;
    const names = ['scale-0001', 'scale-0002', 'scale-0003'];
    await workers.run(async () => {
      const wave = await client.workflow.start<typeof migrationWave>('migrationWave', {
        taskQueue: workers.taskQueue,
        workflowId: `${workers.taskQueue}-wave`,
        args: [{ waveId: workers.taskQueue, selection: { names } }],
      });
      try {
        // Not approved: every VM waits at the gate, its stage in visibility too.
        const query = `WaveId = '${workers.taskQueue}' AND FerryKind = 'migrate' AND FerryStage = 'awaiting-approval'`;
        await until(
          'every VM at the gate in visibility',
          async () => ((await client.workflow.count(query)).count === names.length ? true : undefined),
          180_000,
          500,
        );
        // The wave hears of each VM's stage by a signal the VM sends after it sets its search attribute,
        // so its own summary may be a moment behind visibility.
        const own = await until(
          "every VM at the gate in the wave's own summary",
          async () => {
            const summary = await wave.query(waveSummaryQuery, {});
            return summary.stages['awaiting-approval'] === names.length ? summary : undefined;
          },
          60_000,
          200,
        );
        expect(own.stages).toEqual({ 'awaiting-approval': 3 });

        const answered = await loadStatus(client, wave, {});
        expect(answered.wave?.source).toBeUndefined();
        expect(answered.wave?.counts).toEqual({ pending: 0, running: 3, finished: 0 });

        const fallback = await loadStatus(client, wave, { queryBudgetMs: 0, page: { limit: 2 } });
        expect(fallback.wave).toMatchObject({
          source: 'visibility',
          waveId: workers.taskQueue,
          vms: 3,
          counts: { pending: 0, running: 3, finished: 0 },
        });
        expect(fallback.wave!.stages).toEqual(own.stages);
        expect(fallback.wave!.rows).toHaveLength(2);
        expect(fallback.wave!.page.matching).toBe(3);
        for (const row of fallback.wave!.rows) {
          expect(names).toContain(row.name);
          expect(row).toMatchObject({ state: 'running', stage: 'awaiting-approval', attention: 'awaiting-approval' });
        }
        const text = renderStatus(fallback);
        expect(text).toMatch(/3 VM workflows started: 3 running, 0 finished/);
        expect(text).toMatch(/from visibility: the wave's worker did not answer in time/);
      } finally {
        await wave.terminate('test done');
      }
    });
  });
});
