import type { MigrationStatus } from '../../../src/domain/migration';
import { approveWaveUpdate, rejectCutoverUpdate, waveStatusQuery } from '../../../src/domain/messages';
import type { migrationWave } from '../../../workflows/migration-wave';
import { labWorkers, useMigrationLab } from '../../helpers/migration-lab';
import { until } from '../../helpers/wait';
import { readWaveOutcome } from '../../../lab/wave-result';

describe('a VM whose migration ended without migrating it can be migrated by a later wave, a migrated one never again', () => {
  jest.setTimeout(300_000);
  const suite = useMigrationLab();

  it('rejected in one wave, migrated by the next, left alone by a third', async () => {
    const name = 'scale-0004';
    const workers = await labWorkers(suite.temporal.nativeConnection, suite.lab.deps);
    await workers.run(async () => {
      const client = suite.temporal.client;
      const startWave = (letter: string) =>
        client.workflow.start<typeof migrationWave>('migrationWave', {
          taskQueue: workers.taskQueue,
          workflowId: `${workers.taskQueue}-wave-${letter}`,
          args: [{ waveId: `${workers.taskQueue}-${letter}`, selection: { names: [name] } }],
        });
      const atGate = (wave: Awaited<ReturnType<typeof startWave>>) =>
        until(`${name} at the approval gate`, async () => {
          const s = await wave.query(waveStatusQuery);
          return s.vms[0]?.stage === 'awaiting-approval' ? s.vms[0] : undefined;
        });

      const first = await startWave('a');
      const waiting = await atGate(first);
      const vmWorkflow = client.workflow.getHandle(waiting.workflowId);
      await vmWorkflow.executeUpdate(rejectCutoverUpdate, { args: [{ by: 'alice', reason: 'not this week' }] });
      expect((await readWaveOutcome(client, first)).status.vms).toEqual([
        expect.objectContaining({ name, state: 'finished', outcome: 'rejected' }),
      ]);
      const rejectedRun = (await vmWorkflow.describe()).runId;

      const second = await startWave('b');
      expect((await atGate(second)).workflowId).toBe(waiting.workflowId);
      await second.executeUpdate(approveWaveUpdate, { args: [{ by: 'alice', reason: 'now' }] });
      expect((await readWaveOutcome(client, second)).status.vms).toEqual([
        expect.objectContaining({ name, state: 'finished', outcome: 'migrated' }),
      ]);
      const migratedRun = await client.workflow.getHandle(waiting.workflowId).describe();
      expect(migratedRun.runId).not.toBe(rejectedRun);
      const migrated = (await client.workflow.getHandle(waiting.workflowId).result()) as MigrationStatus;
      expect(migrated.outcome).toBe('migrated');

      const third = await startWave('c');
      const thirdResult = await readWaveOutcome(client, third);
      expect(thirdResult.status.vms).toEqual([
        expect.objectContaining({
          name,
          state: 'finished',
          error: `not started: workflow ${waiting.workflowId} already migrated this VM`,
        }),
      ]);
      // No third run: the migrated one is still the latest.
      expect((await client.workflow.getHandle(waiting.workflowId).describe()).runId).toBe(migratedRun.runId);
    });
  });
});
