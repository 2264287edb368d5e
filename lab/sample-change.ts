import type { Client } from '@temporalio/client';
import type { FerryConfig } from '../src/config';
import { describeChange, describeOutcome } from '../src/domain/change';
import { changeVmWorkflowId, type ChangeResult, type ChangeStatus } from '../src/domain/change-vm';
import { approveChangeUpdate, changeStatusQuery } from '../src/domain/messages';
import type { ProvisionPlannedStatus } from '../src/domain/provisioning';
import { NetboxClient } from '../src/netbox/client';
import { LAB_APPROVERS } from './migration-lab';
import type { LabCommands } from './sample-run';

/** The VM the sample edits: the one that boots the lab's guest image, so the guest itself shows the change. */
const EDITED = 'lab-web1';
const WAIT_MS = 10 * 60_000;
/** Where the run waits for a person, or has ended. */
const SETTLED = new Set<string>(['awaiting-approval', 'done', 'nothing-to-do', 'rejected', 'refused', 'failed']);

/**
 * Day 2 in the lab's sample run: lab-web1, provisioned and running its real guest, is edited in NetBox
 * the way a person would (memory up, its disk grown, its interface moved to VLAN 30, one more vCPU).
 * NetBox's event rule posts the edits to ferry's receiver, which starts `change-<vmid>`; the lab shows
 * its plan, the live changes verified in the guest, and the vCPU change held for an approval (a restart).
 */
export async function startSampleChange(
  client: Client,
  config: FerryConfig,
  provisioned: ProvisionPlannedStatus,
  log: (line: string) => void,
  commands: LabCommands,
): Promise<ChangeStatus | undefined> {
  const vm = provisioned.vms.find((v) => v.name === EDITED && v.outcome === 'provisioned');
  if (!vm?.vmid || !config.netbox?.webhook) return undefined;
  const netbox = NetboxClient.fromConfig(config.netbox);
  const editedAt = Date.now();
  try {
    const { value } = await netbox.getVirtualMachine(vm.netboxId);
    await netbox.updateVirtualMachine(vm.netboxId, {
      memory: (value.memory ?? 2048) + 512,
      vcpus: Number(value.vcpus ?? 2) + 1,
      disk: (value.disk ?? 20480) + 1024,
      custom_fields: { ferry_vlan: 30 },
    });
  } finally {
    await netbox.close();
  }
  log(`lab: day 2: ${EDITED} edited in NetBox (memory +512 MiB, one more vCPU, disk +1 GiB, VLAN 30)`);
  const workflowId = changeVmWorkflowId(vm.vmid);
  const status = await untilDecisionOrEnd(client, workflowId, editedAt);
  log(`lab: day 2: ${workflowId} (started by NetBox's webhook): ${status.stage}`);
  for (const change of status.plan?.changes ?? []) log(`  plan     ${describeChange(change)}`);
  for (const outcome of status.outcomes) log(`  outcome  ${describeOutcome(outcome)}`);
  if (status.stage === 'awaiting-approval') {
    log(`  waits for: ${status.waiting?.for ?? 'an approval'}`);
    log(`  approve:  ${commands.ferry} approve ${workflowId} --by ${LAB_APPROVERS[0]} --reason "lab day 2" --restart`);
  }
  return status;
}

/** `ferry lab --once`: approves the held change with a restart, as the lab's approver, and waits for its end. */
export async function finishSampleChange(
  client: Client,
  status: ChangeStatus,
  log: (line: string) => void,
): Promise<boolean> {
  const workflowId = changeVmWorkflowId(status.vmid);
  const handle = client.workflow.getHandle(workflowId);
  if (status.stage === 'awaiting-approval')
    await handle.executeUpdate(approveChangeUpdate, {
      args: [{ by: LAB_APPROVERS[0]!, reason: 'ferry lab --once', restart: true }],
    });
  const result: ChangeResult = await handle.result();
  log(`lab: day 2: ${workflowId}: ${result.outcome}${result.restarted ? ' (restarted on approval)' : ''}`);
  for (const outcome of result.outcomes) log(`  outcome  ${describeOutcome(outcome)}`);
  return result.outcome === 'applied';
}

/**
 * The run that took this edit, once it waits for a person or ended. NetBox also posts provisioning's own
 * writes (the handover to `staged`), so an earlier run of the same id may have ended already: only a run
 * that heard an edit from `editedAt` on counts (NetBox and the lab share a clock; a second of slack).
 */
async function untilDecisionOrEnd(client: Client, workflowId: string, editedAt: number): Promise<ChangeStatus> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const status = await client.workflow
      .getHandle(workflowId)
      .query(changeStatusQuery)
      .catch(() => undefined);
    const heardIt = status?.edits.some((edit) => Date.parse(edit.at) >= editedAt - 1000);
    if (status && heardIt && SETTLED.has(status.stage)) return status;
    if (Date.now() > deadline)
      throw new Error(
        `${workflowId} did not reach its approval gate or end within ${WAIT_MS / 60_000} min (${status?.stage ?? 'not started'})`,
      );
    await new Promise((r) => setTimeout(r, 1000));
  }
}
