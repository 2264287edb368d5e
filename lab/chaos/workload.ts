import type { Client, WorkflowHandle } from '@temporalio/client';
import { coordinationQueue } from '../../src/domain/task-queues';
import { unpackWaveStatus, type MigrationAction, type MigrationStatus } from '../../src/domain/migration';
import {
  provisionPlannedWorkflowId,
  teardownWorkflowId,
  type ProvisionPlannedStatus,
  type ProvisionStatus,
  type TeardownResult,
} from '../../src/domain/provisioning';
import { retryCutoverUpdate, waveStatusQuery } from '../../src/domain/messages';
import { FerryKind } from '../../src/domain/search-attributes';
import type { NetboxClient } from '../../src/netbox/client';
import { idOnly } from '../../src/netbox/schemas';
import type { migrationWave } from '../../workflows/migration-wave';
import type { planMigration } from '../../workflows/plan-migration';
import type { provisionPlanned } from '../../workflows/provision-planned';
import type { teardownVm } from '../../workflows/teardown-vm';
import { LAB_NETBOX, type SeededNetbox } from '../netbox-seed';
import { SAMPLE_ISO } from '../proxmox-sim/sample-cluster';
import { ESTATE } from '../vcsim/estate';
import { queriedActions, startedByTheWave } from '../wave-result';
import type { MigrationOutcome, ProvisionOutcome } from './invariants';
import type { ChaosWorkload } from './schedule';

export const CHAOS_TAG = 'chaos';
const SELECTION = { folder: `/${ESTATE.datacenter}/vm/${ESTATE.scaleFolder}` };

/** The chaos VMs in NetBox: `planned`, tagged `chaos`, in the lab cluster; their VMIDs come from ferry's allocator. */
export async function createPlannedVms(nb: NetboxClient, seeded: SeededNetbox, count: number): Promise<void> {
  const [tag] = await nb.http.list('api/extras/tags/', { slug: CHAOS_TAG }, idOnly);
  if (!tag)
    await nb.http.request('POST', 'api/extras/tags/', { schema: idOnly, body: { name: CHAOS_TAG, slug: CHAOS_TAG } });
  for (let i = 1; i <= count; i++) {
    await nb.http.request('POST', 'api/virtualization/virtual-machines/', {
      schema: idOnly,
      body: {
        name: `chaos-${String(i).padStart(3, '0')}`,
        status: 'planned',
        cluster: seeded.clusterId,
        site: seeded.siteId,
        vcpus: 1,
        memory: 512,
        disk: 1024,
        tags: [{ slug: CHAOS_TAG }],
        custom_fields: { ...LAB_NETBOX.common, ferry_iso: `local:iso/${SAMPLE_ISO}` },
      },
    });
  }
}

/** The dry run before anything moves: every scale VM's actions, as JSON per action, by VM. */
export async function planWave(client: Client, taskQueue: string): Promise<Map<string, string[]>> {
  const plan = await client.workflow.execute<typeof planMigration>('planMigration', {
    taskQueue,
    workflowId: 'chaos-plan',
    args: [SELECTION],
  });
  return actionsByVm(plan.actions);
}

function actionsByVm(actions: readonly MigrationAction[]): Map<string, string[]> {
  const byVm = new Map<string, string[]>();
  for (const a of actions) if ('vm' in a) byVm.set(a.vm, [...(byVm.get(a.vm) ?? []), JSON.stringify(a)]);
  for (const list of byVm.values()) list.sort();
  return byVm;
}

/** Workflows that failed (id → the failure and its causes), for the report: a failure is an outcome to explain. */
export type WorkflowFailures = Map<string, string>;

/** A failure with its causes, outermost first: `wave failed: child failed: activity failed: <why>`. */
function failureChain(err: unknown): string {
  const parts: string[] = [];
  for (let e = err as { message?: string; cause?: unknown } | undefined; e && parts.length < 8; e = e.cause as typeof e)
    if (e.message) parts.push(e.message);
  return parts.join(': ');
}

/**
 * A workflow's result, asked again while the Temporal server restarts; none once `deadline` passes (the
 * wait for a result is a long poll that would otherwise outlast it, a workflow stuck for good with it).
 * A failed workflow gives none either, and its failure goes into `failures`.
 */
async function resultOf<T>(
  handle: WorkflowHandle,
  deadline: number,
  failures?: WorkflowFailures,
): Promise<T | undefined> {
  while (Date.now() < deadline) {
    const atDeadline = new AbortController();
    const timer = setTimeout(() => atDeadline.abort(), deadline - Date.now());
    try {
      return (await handle.client.withAbortSignal(atDeadline.signal, () => handle.result())) as T;
    } catch (err) {
      if ((err as Error).name === 'WorkflowFailedError') failures?.set(handle.workflowId, failureChain(err));
      if ((err as Error).name === 'WorkflowFailedError' || atDeadline.signal.aborted) return undefined;
      await new Promise((r) => setTimeout(r, 1000));
    } finally {
      clearTimeout(timer);
    }
  }
  return undefined;
}

export interface WorkloadOutcome {
  migrations: MigrationOutcome[];
  provisions: ProvisionOutcome[];
  /** Decisions the run's operator took for VMs that waited for a person after a failure. */
  operatorRetries: number;
  failures: WorkflowFailures;
}

/**
 * The workload: a migration wave of the scale VMs (auto-approved) and a provisioning batch of the
 * chaos NetBox VMs at once; then the first `teardown` provisioned VMs torn down. A VM that waits for a
 * person after a failure is retried by the run's operator (acknowledging lost guest writes).
 */
export async function runWorkload(
  client: Client,
  taskQueue: string,
  workload: ChaosWorkload,
  plan: Map<string, string[]>,
  deadline: number,
): Promise<WorkloadOutcome> {
  const wave = await client.workflow.start<typeof migrationWave>('migrationWave', {
    taskQueue: coordinationQueue(taskQueue),
    workflowId: 'chaos-wave',
    args: [{ waveId: 'chaos', selection: SELECTION, autoApprove: { by: 'lab-admin', reason: 'chaos run' } }],
  });
  const batch = await client.workflow.start<typeof provisionPlanned>('provisionPlanned', {
    taskQueue: coordinationQueue(taskQueue),
    workflowId: provisionPlannedWorkflowId({ tag: CHAOS_TAG }),
    args: [{ tag: CHAOS_TAG }],
    typedSearchAttributes: [{ key: FerryKind, value: 'provision-planned' }],
  });
  const operator = startOperator(client, wave);
  const failures: WorkflowFailures = new Map();
  const provisions = await provisionAndTearDown(client, taskQueue, batch, workload.teardown, deadline, failures);
  const waveResult = await resultOf<Awaited<ReturnType<typeof migrationWave>>>(wave, deadline, failures);
  const operatorRetries = await operator.stop();
  const status = waveResult
    ? unpackWaveStatus(waveResult.status)
    : await wave.query(waveStatusQuery).catch(() => undefined);
  // The wave's result holds its own actions; each VM's are read from the VM's own workflow.
  const recorded = actionsByVm(waveResult?.waveActions ?? []);
  const migrations: MigrationOutcome[] = await Promise.all(
    (status?.vms ?? []).map(async (v) => {
      const own = await resultOf<MigrationStatus>(
        client.workflow.getHandle(v.workflowId),
        Math.min(deadline, Date.now() + 30_000),
        failures,
      );
      const actions = startedByTheWave(v) ? (own?.actions ?? (await queriedActions(client, v.workflowId))) : [];
      const mine = [...(recorded.get(v.name) ?? []), ...(actionsByVm(actions).get(v.name) ?? [])].sort();
      return {
        name: v.name,
        workflowId: v.workflowId,
        vmid: own?.vmid,
        outcome: v.outcome,
        planned: plan.get(v.name),
        recorded: mine,
      };
    }),
  );
  for (const r of status?.refused ?? [])
    migrations.push({
      name: r.name,
      workflowId: '(refused by the wave)',
      outcome: 'refused',
      planned: plan.get(r.name),
      recorded: recorded.get(r.name) ?? [],
    });
  // VMs of the plan the wave never listed have no outcome either.
  for (const name of plan.keys())
    if (!migrations.some((m) => m.name === name))
      migrations.push({
        name,
        workflowId: '(none)',
        vmid: undefined,
        outcome: undefined,
        planned: plan.get(name),
        recorded: [],
      });
  return { migrations, provisions, operatorRetries, failures };
}

async function provisionAndTearDown(
  client: Client,
  taskQueue: string,
  batch: WorkflowHandle,
  teardowns: number,
  deadline: number,
  failures: WorkflowFailures,
): Promise<ProvisionOutcome[]> {
  const result = await resultOf<ProvisionPlannedStatus>(batch, deadline, failures);
  const outcomes: ProvisionOutcome[] = [];
  for (const vm of result?.vms ?? []) {
    const own = await resultOf<ProvisionStatus>(client.workflow.getHandle(vm.workflowId), deadline, failures);
    outcomes.push({
      name: vm.name,
      workflowId: vm.workflowId,
      vmid: vm.vmid ?? own?.vmid,
      outcome: vm.outcome === 'not-started' ? undefined : vm.outcome,
      createStep: own?.steps.find((s) => s.step === 'create-vm')?.outcome,
      address: vm.address ?? own?.address,
      fqdn: own?.fqdn,
    });
  }
  const chosen = outcomes.filter((p) => p.outcome === 'provisioned' && p.vmid !== undefined).slice(0, teardowns);
  const handles = await Promise.all(
    chosen.map((p) =>
      client.workflow.start<typeof teardownVm>('teardownVm', {
        taskQueue,
        workflowId: teardownWorkflowId(p.vmid!),
        args: [{ vmid: p.vmid!, netboxId: Number(p.workflowId.split('-').at(-1)) }],
        typedSearchAttributes: [{ key: FerryKind, value: 'teardown' }],
      }),
    ),
  );
  await Promise.all(
    chosen.map(async (p, i) => {
      const torn = await resultOf<TeardownResult>(handles[i]!, deadline, failures);
      p.teardown = {
        asked: true,
        outcome: torn?.outcome,
        deleteStep: torn?.steps.find((s) => s.step === 'delete')?.outcome,
      };
    }),
  );
  return outcomes;
}

/** Plays the person a failed cutover waits for: retries it, acknowledging what a live import would lose. */
function startOperator(client: Client, wave: WorkflowHandle): { stop(): Promise<number> } {
  let running = true;
  let retries = 0;
  const loop = (async () => {
    while (running) {
      await new Promise((r) => setTimeout(r, 2000));
      const status = await wave.query(waveStatusQuery).catch(() => undefined);
      for (const vm of status?.vms.filter((v) => v.stage === 'awaiting-decision') ?? []) {
        const decision = { by: 'lab-admin', reason: 'chaos operator: retry', discardGuestWrites: true };
        const accepted = await client.workflow
          .getHandle(vm.workflowId)
          .executeUpdate(retryCutoverUpdate, { args: [decision] })
          .then(
            () => true,
            () => false,
          );
        if (accepted) retries++;
      }
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return retries;
    },
  };
}
