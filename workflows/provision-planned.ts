import {
  ParentClosePolicy,
  setHandler,
  startChild,
  upsertSearchAttributes,
  WorkflowIdReusePolicy,
  type ChildWorkflowHandle,
} from '@temporalio/workflow';
import { plannedCounts, provisionWorkflowId, type PlannedVm, type ProvisionPlannedStatus, type ProvisioningSettings } from '../src/domain/provisioning';
import { FerryKind, FerryStage } from '../src/domain/search-attributes';
import { failureMessage } from './failures';
import { provisionPlannedStatusQuery } from '../src/messages';
import { provisionVm } from './provision-vm';
import { READ, run } from './provisioning/proxies';

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

  const settings = await run(READ, 'loadProvisioningSettings', 'read the provisioning settings (ferry.yaml)');
  const planned = await run(READ, 'listPlannedVms', `NetBox VMs in status planned${input.cluster ? ` in ${input.cluster}` : ''}${input.tag ? ` tagged ${input.tag}` : ''}`, {
    ...(input.cluster ? { cluster: input.cluster } : {}),
    ...(input.tag ? { tag: input.tag } : {}),
  });
  status.vms = planned.map((vm) => ({ ...vm, workflowId: provisionWorkflowId(vm, settings.netboxName), state: 'pending' }));

  status.stage = 'provisioning';
  upsertSearchAttributes([{ key: FerryStage, value: 'provisioning' }]);
  const limit = input.maxConcurrent ?? settings.maxConcurrent;
  const running = new Set<Promise<void>>();
  for (const vm of status.vms) {
    while (running.size >= limit) await Promise.race(running);
    const handle = await startVm(vm, settings, input.start);
    if (!handle) continue;
    const done: Promise<void> = handle
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
        running.delete(done);
      });
    running.add(done);
  }
  await Promise.all(running);
  status.stage = 'done';
  upsertSearchAttributes([{ key: FerryStage, value: 'done' }]);
  return { ...status, counts: plannedCounts(status.vms) };
}

async function startVm(vm: PlannedVm, settings: ProvisioningSettings, start: boolean | undefined): Promise<ChildWorkflowHandle<typeof provisionVm> | undefined> {
  try {
    const handle = await startChild(provisionVm, {
      workflowId: vm.workflowId,
      args: [{ netboxId: vm.netboxId, settings, ...(start !== undefined ? { start } : {}) }],
      // The VM's workflow outlives this one (a person may cancel the batch, not the builds).
      parentClosePolicy: ParentClosePolicy.ABANDON,
      // A record that has a provision workflow already (running, or finished) is not started twice.
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
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
