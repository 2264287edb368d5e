import {
  ParentClosePolicy,
  setHandler,
  startChild,
  upsertSearchAttributes,
  WorkflowIdReusePolicy,
  type ChildWorkflowHandle,
} from '@temporalio/workflow';
import {
  plannedCounts,
  provisionWorkflowId,
  type PlannedRecord,
  type PlannedVm,
  type ProvisionPlannedStatus,
  type ProvisioningSettings,
} from '../src/domain/provisioning';
import { FerryKind, FerryStage } from '../src/domain/search-attributes';
import { failureMessage } from './failures';
import { provisionPlannedStatusQuery } from '../src/domain/messages';
import { provisionVm } from './provision-vm';
import { mainQueue } from './queues';
import { placePlanned } from './provisioning/plan-placement';
import { loadProvisioningSettings } from './provisioning/settings';
import { reads } from './vm/proxies';

export interface ProvisionPlannedInput {
  /** Only VMs of this NetBox cluster (name). */
  cluster?: string;
  /** Only VMs with this NetBox tag (slug). */
  tag?: string;
  /** VM workflows at once (default provisioning.maxConcurrent). */
  maxConcurrent?: number;
  /** Start each VM when built (default: provisioning.start). */
  start?: boolean;
}

export type ProvisionPlannedResult = ProvisionPlannedStatus;

/**
 * Provisions every NetBox VM in status `planned` (of a cluster, with a tag): one `provisionVm` child
 * each, with the deterministic id `provision-<netboxId>`, a bounded number at once. A record that
 * already has a provision workflow, running or finished, is not started again: a second run starts
 * nothing twice (a failed one is rerun on its own, `ferry provision --netbox-id`).
 */
export async function provisionPlanned(input: ProvisionPlannedInput = {}): Promise<ProvisionPlannedResult> {
  const status: ProvisionPlannedStatus = {
    kind: 'provision-planned',
    selection: { ...(input.cluster ? { cluster: input.cluster } : {}), ...(input.tag ? { tag: input.tag } : {}) },
    stage: 'select',
    vms: [],
    counts: plannedCounts([]),
  };
  setHandler(provisionPlannedStatusQuery, () => ({ ...status, counts: plannedCounts(status.vms) }));
  upsertSearchAttributes([
    { key: FerryKind, value: 'provision-planned' },
    { key: FerryStage, value: 'select' },
  ]);

  const settings = await loadProvisioningSettings();
  const selected = await selectPlanned(status.selection, settings);
  status.vms = selected.vms;

  status.stage = 'provisioning';
  upsertSearchAttributes([{ key: FerryStage, value: 'provisioning' }]);
  const nodes = await placePlanned(status.vms, settings, selected.records);
  await provisionAll(status.vms, settings, input, nodes);

  status.stage = 'done';
  upsertSearchAttributes([{ key: FerryStage, value: 'done' }]);
  return { ...status, counts: plannedCounts(status.vms) };
}

/**
 * The planned NetBox VMs of the selection, each with the id of its provision workflow, and their
 * records as the one list request read them (placement needs no read per VM).
 */
async function selectPlanned(
  selection: ProvisionPlannedStatus['selection'],
  settings: ProvisioningSettings,
): Promise<{ vms: PlannedVm[]; records: PlannedRecord[] }> {
  const { cluster, tag } = selection;
  const summary = `NetBox VMs in status planned${cluster ? ` in ${cluster}` : ''}${tag ? ` tagged ${tag}` : ''}`;
  const pending = (vm: { netboxId: number; name: string }): PlannedVm => ({
    ...vm,
    workflowId: provisionWorkflowId(vm, settings.netboxName),
    state: 'pending',
  });
  const records = await reads.readPlannedVms.executeWithOptions({ summary }, [selection]);
  return { vms: records.map((r) => pending({ netboxId: r.id, name: r.name })), records };
}

/** One provisionVm child per VM, at most `maxConcurrent` running at once; returns when all have ended. */
async function provisionAll(
  vms: PlannedVm[],
  settings: ProvisioningSettings,
  input: ProvisionPlannedInput,
  nodes: Map<number, string>,
): Promise<void> {
  const limit = input.maxConcurrent ?? settings.maxConcurrent;
  const running = new Set<Promise<void>>();
  // A VM placement refused is finished already (failed, with the numbers).
  for (const vm of vms.filter((v) => v.state === 'pending')) {
    while (running.size >= limit) await Promise.race(running);
    const handle = await startVmWorkflow(vm, settings, input.start, nodes.get(vm.netboxId));
    if (!handle) continue;
    const done: Promise<void> = recordResult(vm, handle, () => running.delete(done));
    running.add(done);
  }
  await Promise.all(running);
}

/** Waits for one VM's workflow and writes its outcome into the VM's entry; then `ended`. */
function recordResult(
  vm: PlannedVm,
  handle: ChildWorkflowHandle<typeof provisionVm>,
  ended: () => void,
): Promise<void> {
  return handle
    .result()
    .then((result) => {
      vm.outcome = 'provisioned';
      vm.vmid = result.vmid;
      if (result.address) vm.address = result.address;
    })
    .catch((err: unknown) => {
      vm.outcome = 'failed';
      vm.error = failureMessage(err);
    })
    .finally(() => {
      vm.state = 'finished';
      ended();
    });
}

/** Starts the VM's provisionVm child; a record that has a provision workflow already is marked not started. */
async function startVmWorkflow(
  vm: PlannedVm,
  settings: ProvisioningSettings,
  start: boolean | undefined,
  node: string | undefined,
): Promise<ChildWorkflowHandle<typeof provisionVm> | undefined> {
  try {
    const handle = await startChild(provisionVm, {
      workflowId: vm.workflowId,
      // This batch runs on the coordination queue; its VMs run on the main queue.
      taskQueue: mainQueue(),
      args: [
        {
          netboxId: vm.netboxId,
          settings,
          ...(start !== undefined ? { start } : {}),
          ...(node !== undefined ? { placedNode: node } : {}),
        },
      ],
      // The VM's workflow outlives this one (a person may cancel the batch, not the builds).
      parentClosePolicy: ParentClosePolicy.ABANDON,
      // A record that has a provision workflow already (running, or finished) is not started twice.
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      staticSummary: `provision NetBox VM ${vm.netboxId} ${vm.name}`,
    });
    vm.state = 'running';
    return handle;
  } catch (err) {
    if (!(err instanceof Error && err.name === 'WorkflowExecutionAlreadyStartedError')) throw err;
    vm.state = 'finished';
    vm.outcome = 'not-started';
    vm.error = `not started: workflow ${vm.workflowId} already exists (running or finished; see it there)`;
    return undefined;
  }
}
