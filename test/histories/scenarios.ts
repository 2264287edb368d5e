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
import type { holdPermit } from '../workflows/permit-probes';
import { mkdirSync } from 'node:fs';
import { provisionWorkflowId, teardownWorkflowId, VMID_ALLOCATOR_KEY } from '../../src/domain/provisioning';
import { approveTeardownSignal, teardownStatusQuery } from '../../workflows/messages';
import type { provisionPlanned } from '../../workflows/provision-planned';
import type { provisionVm } from '../../workflows/provision-vm';
import type { teardownVm } from '../../workflows/teardown-vm';
import { runWorkers, startProvisionLab, type ProvisionLab } from '../helpers/provision-lab';
import { createTestWorker, uniqueName } from '../helpers/temporal';

export interface ScenarioContext {
  client: Client;
  connection: NativeConnection;
  address: string;
}

export interface Scenario {
  name: string;
  /** Runs the scenario; returns the id of the workflow whose history is stored. */
  run(ctx: ScenarioContext): Promise<string>;
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
      const worker = await createTestWorker(connection, { taskQueue, activities: createPermitActivities() });
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
];

/** Runs `fn` against a fresh provisioning lab (simulator, NetBox, BIND) with workers on their own queue. */
async function withProvisionLab<T>(ctx: ScenarioContext, fn: (lab: ProvisionLab, taskQueue: string) => Promise<T>): Promise<T> {
  const lab = await startProvisionLab({ temporalAddress: ctx.address });
  const workers = await runWorkers(ctx.connection, lab.deps, 'record');
  try {
    return await fn(lab, workers.taskQueue);
  } finally {
    await workers.stop();
    await lab.stop();
  }
}

SCENARIOS.push(
  {
    // A planned record without a VMID: allocation, the whole build, NetBox, DNS, and a start under the permit.
    name: 'provision',
    run: (ctx) =>
      withProvisionLab(ctx, async (lab, taskQueue) => {
        const { id } = await lab.plannedVm({ fields: { ferry_vlan: 20 } });
        const workflowId = provisionWorkflowId({ netboxId: id });
        await ctx.client.workflow.execute<typeof provisionVm>('provisionVm', { taskQueue, workflowId, args: [{ netboxId: id, start: true }] });
        return workflowId;
      }),
  },
  {
    // Two planned records, built as children of one batch.
    name: 'provision-planned',
    run: (ctx) =>
      withProvisionLab(ctx, async (lab, taskQueue) => {
        const tag = await lab.tag('recorded');
        await Promise.all([lab.plannedVm({ tags: [tag] }), lab.plannedVm({ tags: [tag] })]);
        const workflowId = 'provision-planned-recorded';
        await ctx.client.workflow.execute<typeof provisionPlanned>('provisionPlanned', { taskQueue, workflowId, args: [{ tag }] });
        return workflowId;
      }),
  },
  {
    // The allocator after answering two provisions at once (a running workflow: its history so far).
    name: 'vmid-allocator',
    run: (ctx) =>
      withProvisionLab(ctx, async (lab, taskQueue) => {
        const records = await Promise.all([lab.plannedVm({}), lab.plannedVm({})]);
        await Promise.all(
          records.map(({ id }) =>
            ctx.client.workflow.execute<typeof provisionVm>('provisionVm', { taskQueue, workflowId: provisionWorkflowId({ netboxId: id }), args: [{ netboxId: id }] }),
          ),
        );
        return scopedLimitKey(taskQueue, VMID_ALLOCATOR_KEY);
      }),
  },
  {
    // An active record: approval by signal, a guest that ignores shutdown (forced stop), a cleanup that fails.
    name: 'teardown',
    run: (ctx) =>
      withProvisionLab(ctx, async (lab, taskQueue) => {
        const { id } = await lab.plannedVm({});
        const built = await ctx.client.workflow.execute<typeof provisionVm>('provisionVm', {
          taskQueue,
          workflowId: provisionWorkflowId({ netboxId: id }),
          args: [{ netboxId: id, start: true }],
        });
        const vmid = built.vmid!;
        await lab.nb.updateVirtualMachine(id, { status: 'active' });
        await lab.admin.setGuest(vmid, { guestAcpi: false });
        mkdirSync(lab.knownHostsFile);
        const handle = await ctx.client.workflow.start<typeof teardownVm>('teardownVm', { taskQueue, workflowId: teardownWorkflowId(vmid), args: [{ vmid }] });
        while ((await handle.query(teardownStatusQuery)).stage !== 'awaiting-approval') await new Promise((r) => setTimeout(r, 100));
        await handle.signal(approveTeardownSignal, { by: 'alice', reason: 'recorded' });
        await handle.result();
        return handle.workflowId;
      }),
  },
);
