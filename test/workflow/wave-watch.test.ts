import { Context } from '@temporalio/activity';
import { createWorkflowWatchActivities } from '../../activities/workflow-watch';
import type { MigrationSettings, WaveStatus } from '../../src/domain/migration';
import { migrateVmWorkflowId } from '../../src/domain/migration';
import { approveWaveSignal, waveStatusQuery } from '../../src/domain/messages';
import type { migrationWave } from '../../workflows/migration-wave';
import { rules, vm } from '../unit/domain/migration/fixtures';
import { until } from '../helpers/wait';
import { connectTestTemporal, createTestWorker, uniqueName, type TestTemporal } from '../helpers/temporal';
import { readWaveOutcome } from '../../lab/wave-result';

// Unique per run of the file: VM workflow ids derive from it and are never reused on one server.
const VCENTER = uniqueName('vc');

function settings(): MigrationSettings {
  return {
    vcenter: VCENTER,
    node: 'pve1',
    targetStorage: 'local-lvm',
    migrationDatastore: 'nfs-migration',
    datastores: [],
    rules: rules(),
    approvers: ['alice'],
    relocateTimeoutMs: 3_600_000,
    heartbeatTimeoutMs: 60_000,
    cutover: {
      mode: 'import',
      shutdownTimeoutMs: 60_000,
      forcePowerOff: false,
      startAfter: false,
      importTimeoutMs: 3_600_000,
    },
    limits: { vmotion: 1, importPerStorage: 1, sdn: 1, vmStart: 1 },
  } as MigrationSettings;
}

/**
 * The wave workflow on the dev server with stand-ins for vCenter and Proxmox: what it does with
 * approvals that come in while it loads its settings, and with a VM workflow that never reports.
 */
describe('migration wave bookkeeping', () => {
  jest.setTimeout(120_000);
  let temporal: TestTemporal;
  beforeAll(async () => {
    temporal = await connectTestTemporal();
  });
  afterAll(() => temporal.close());

  /** Activities for a wave of `vms`; settings load only once `loaded` resolves; a VM's first Proxmox read never answers. */
  function stubActivities(vms: ReturnType<typeof vm>[], loaded: Promise<void>) {
    return {
      ...createWorkflowWatchActivities(),
      async loadMigrationSettings() {
        await loaded;
        return settings();
      },
      async discoverWave() {
        return { vcenter: VCENTER, vms, portgroups: [], datastoresByVm: {} };
      },
      async readSdnState() {
        return { zones: ['ferry'], vnets: [] };
      },
      // Stands in for a VM workflow stuck until someone terminates it.
      async findPveVms() {
        await Context.current().cancelled;
        return [];
      },
    };
  }

  it('applies a valid approval signalled while the settings load, and records an invalid one', async () => {
    const taskQueue = uniqueName('wave-approve');
    let load!: () => void;
    const worker = await createTestWorker(temporal.nativeConnection, {
      taskQueue,
      activities: stubActivities([], new Promise<void>((r) => (load = r))),
    });
    const result = await worker.runUntil(async () => {
      const wave = await temporal.client.workflow.start<typeof migrationWave>('migrationWave', {
        taskQueue,
        workflowId: `${taskQueue}-wave`,
        args: [{ waveId: taskQueue, selection: { names: [] } }],
      });
      await wave.signal(approveWaveSignal, { by: 'mallory', reason: 'looks fine' });
      await wave.signal(approveWaveSignal, { by: 'alice', reason: 'change 42' });
      // Both signals are in before the settings are known.
      await until('both signals in history', async () => {
        const { events } = await wave.fetchHistory();
        return (events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes).length === 2 ? true : undefined;
      });
      load();
      return readWaveOutcome(temporal.client, wave);
    });
    expect(result.status.approvals).toEqual([
      { by: 'alice', reason: 'change 42', via: 'signal', vms: 'all', at: expect.any(Number) },
    ]);
    expect(result.status.ignored).toEqual([
      { message: 'approve by mallory (signal)', reason: 'mallory is not an approver (approvers: alice)' },
    ]);
  });

  it('marks a VM workflow that closed without reporting as finished, with how it closed', async () => {
    const taskQueue = uniqueName('wave-watch');
    const stuck = vm({ moid: 'vm-77', name: 'stuck01', nics: [] });
    const worker = await createTestWorker(temporal.nativeConnection, {
      taskQueue,
      activities: stubActivities([stuck], Promise.resolve()),
    });
    const childId = migrateVmWorkflowId(VCENTER, stuck.moid);
    const result = await worker.runUntil(async () => {
      const wave = await temporal.client.workflow.start<typeof migrationWave>('migrationWave', {
        taskQueue,
        workflowId: `${taskQueue}-wave`,
        args: [{ waveId: taskQueue, selection: { names: [] }, childCheckIntervalMs: 1_000 }],
      });
      const status = await until('the VM workflow to run', async () => {
        const s: WaveStatus = await wave.query(waveStatusQuery);
        return s.vms[0]?.state === 'running' ? s : undefined;
      });
      await temporal.client.workflow.getHandle(status.vms[0]!.workflowId).terminate('operator gave up on it');
      return readWaveOutcome(temporal.client, wave);
    });
    expect(result.status.vms).toEqual([
      expect.objectContaining({
        name: 'stuck01',
        workflowId: childId,
        state: 'finished',
        closedAs: 'TERMINATED',
        error: `workflow ${childId} closed (TERMINATED) without reporting to the wave`,
      }),
    ]);
  });
});
