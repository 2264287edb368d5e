/**
 * How each stored history under test/histories/ was made. `npm run record-histories` runs these
 * against a real dev server and writes `<name>.json`; the replay test replays every file against the
 * current workflow code, so a change that breaks running workflows fails the tests.
 */
import { scopedLimitKey } from '../../src/domain/task-queues';
import type { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { createPermitActivities } from '../../activities/permits';
import { parseConfig } from '../../src/config';
import { semaphoreWorkflowId } from '../../src/domain/permits';
import type { doctor } from '../../workflows/doctor';
import type { holdPermit } from '../workflow-bundle/permit-probes';
import { mkdirSync } from 'node:fs';
import { provisionWorkflowId, teardownWorkflowId, VMID_ALLOCATOR_KEY } from '../../src/domain/provisioning';
import { approveTeardownSignal, teardownStatusQuery } from '../../src/domain/messages';
import type { provisionPlanned } from '../../workflows/provision-planned';
import type { provisionVm } from '../../workflows/provision-vm';
import type { teardownVm } from '../../workflows/teardown-vm';
import { runWorkers, startProvisionLab } from '../helpers/provision-lab';
import { createTestWorker, createTestWorkers, uniqueName } from '../helpers/temporal';
import { labWorkers, startMigrationLab } from '../helpers/migration-lab';
import type { migrationWave } from '../../workflows/migration-wave';
import { unpackWaveStatus } from '../../src/domain/migration';

export interface ScenarioContext {
  client: Client;
  connection: NativeConnection;
  address: string;
}

export interface Scenario {
  name: string;
  /** Runs the scenario; returns the id of the workflow whose history is stored as `<name>.json`, or several by file name. */
  run(ctx: ScenarioContext): Promise<string | Record<string, string>>;
}

export const SCENARIOS: Scenario[] = [
  {
    name: 'doctor',
    async run({ client, connection, address }) {
      const taskQueue = uniqueName('record-doctor');
      const config = parseConfig({ temporal: { address } }, {});
      const worker = await createTestWorker(connection, { taskQueue, activities: createActivities({ config }) });
      const workflowId = uniqueName('doctor');
      await worker.runUntil(client.workflow.execute<typeof doctor>('doctor', { taskQueue, workflowId }));
      return workflowId;
    },
  },
  {
    name: 'semaphore',
    async run({ client, connection }) {
      const taskQueue = uniqueName('record-semaphore');
      const key = uniqueName('limit');
      // The semaphore runs on the coordination queue beside the probes' queue.
      const worker = await createTestWorkers(connection, { taskQueue, activities: createPermitActivities() });
      await worker.runUntil(
        Promise.all(
          [0, 1, 2].map((i) =>
            client.workflow.execute<typeof holdPermit>('holdPermit', {
              taskQueue,
              workflowId: `${key}-${i}`,
              args: [{ key, permits: 1, leaseMs: 60_000, holdMs: 100 }],
            }),
          ),
        ),
      );
      return semaphoreWorkflowId(scopedLimitKey(taskQueue, key));
    },
  },
  {
    name: 'migration',
    async run({ client, connection }) {
      const lab = await startMigrationLab();
      try {
        const workers = await labWorkers(connection, lab.deps);
        const result = await workers.run(() =>
          client.workflow.execute<typeof migrationWave>('migrationWave', {
            taskQueue: workers.taskQueue,
            workflowId: `${workers.taskQueue}-wave`,
            args: [
              {
                waveId: workers.taskQueue,
                selection: { names: ['mig-web01', 'mig-snap01', 'scale-0001'] },
                autoApprove: { by: 'alice', reason: 'recorded for the replay test' },
              },
            ],
          }),
        );
        const web01 = unpackWaveStatus(result.status).vms.find((v) => v.name === 'mig-web01')!;
        return { 'migration-wave': `${workers.taskQueue}-wave`, 'migrate-vm': web01.workflowId };
      } finally {
        await lab.stop();
      }
    },
  },
];

SCENARIOS.push({
  /**
   * One provisioning lab (simulator, NetBox, BIND), four histories: a planned record without a VMID
   * (allocation, the whole build, NetBox, DNS, a start under the permit); a batch of two; the allocator
   * after answering them all (a running workflow: its history so far); and the teardown of the first
   * VM while its record is active (approval by signal, a guest that ignores shutdown, a cleanup that
   * fails).
   */
  name: 'provisioning',
  async run({ client, connection }) {
    const lab = await startProvisionLab();
    const workers = await runWorkers(connection, lab.deps, 'record');
    const taskQueue = workers.taskQueue;
    try {
      const { id } = await lab.plannedVm({ fields: { ferry_vlan: 20 } });
      const provision = provisionWorkflowId({ netboxId: id });
      const built = await client.workflow.execute<typeof provisionVm>('provisionVm', {
        taskQueue,
        workflowId: provision,
        args: [{ netboxId: id, start: true }],
      });

      const tag = await lab.tag('recorded');
      await Promise.all([lab.plannedVm({ tags: [tag] }), lab.plannedVm({ tags: [tag] })]);
      const planned = 'provision-planned-recorded';
      await client.workflow.execute<typeof provisionPlanned>('provisionPlanned', {
        taskQueue,
        workflowId: planned,
        args: [{ tag }],
      });

      const vmid = built.vmid!;
      await lab.nb.updateVirtualMachine(id, { status: 'active' });
      await lab.admin.setGuest(vmid, { guestAcpi: false });
      mkdirSync(lab.knownHostsFile);
      const teardown = await client.workflow.start<typeof teardownVm>('teardownVm', {
        taskQueue,
        workflowId: teardownWorkflowId(vmid),
        args: [{ vmid }],
      });
      while ((await teardown.query(teardownStatusQuery)).stage !== 'awaiting-approval')
        await new Promise((r) => setTimeout(r, 100));
      await teardown.signal(approveTeardownSignal, { by: 'alice', reason: 'recorded' });
      await teardown.result();
      return {
        provision,
        'provision-planned': planned,
        'vmid-allocator': scopedLimitKey(taskQueue, VMID_ALLOCATOR_KEY),
        teardown: teardown.workflowId,
      };
    } finally {
      await workers.stop();
      await lab.stop();
    }
  },
});
