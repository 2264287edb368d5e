import { setTimeout as sleep } from 'node:timers/promises';
import { WorkflowFailedError, type Client } from '@temporalio/client';
import type { BuiltVm } from '../activities/provisioning-contract';
import { changeVmWorkflowId, type ChangeResult, type ChangeStatus, type NetboxEdit } from '../src/domain/change-vm';
import { changeStatusQuery } from '../src/domain/messages';
import { signalChangeVm } from '../src/webhook/signal-change';
import { rootCauseMessage } from './workflow-result';

/**
 * `ferry apply`: each VM's `changeVm` is started, or signalled when one runs, in one signal-with-start
 * (as NetBox's webhook does), so two applies never make two runs: a running one reads both sides and
 * plans again. `--wait` follows each run until it ends or waits for a person.
 */

/** Signals-with-start the VM's `changeVm`; the run id that took the signal. */
export async function applyTo(client: Client, taskQueue: string, vm: BuiltVm, at: Date): Promise<string> {
  const edit: NetboxEdit = {
    model: 'virtualization.virtualmachine',
    objectId: vm.netboxId,
    event: 'updated',
    at: at.toISOString(),
    from: 'ferry-apply',
  };
  const { runId } = await signalChangeVm(client, taskQueue, {
    kind: 'signal',
    workflowId: changeVmWorkflowId(vm.vmid),
    start: { netboxId: vm.netboxId, vmid: vm.vmid, trigger: { source: 'ferry-apply', at: at.toISOString() } },
    edit,
  });
  return runId;
}

/** Where a followed run stopped: ended (with its result or error), or at its gate waiting for a person. */
export type Followed =
  | { workflowId: string; state: 'ended'; result: ChangeResult }
  | { workflowId: string; state: 'failed'; error: string; status?: ChangeStatus }
  | { workflowId: string; state: 'waiting'; status: ChangeStatus };

/** A run at its gate waits for an approval (not for the debounce of a new edit, which keeps the stage until it plans). */
export function waitsForDecision(status: Pick<ChangeStatus, 'stage' | 'waiting'>): boolean {
  return status.stage === 'awaiting-approval' && /approval/.test(status.waiting?.for ?? '');
}

/** Polls the run's status until it ends or waits for a decision; `onStage` hears each new stage. */
export async function followChange(
  client: Client,
  workflowId: string,
  onStage: (stage: string) => void,
  intervalMs = 1000,
): Promise<Followed> {
  const handle = client.workflow.getHandle(workflowId);
  let seen: string | undefined;
  for (;;) {
    const described = await handle.describe();
    if (described.status.name !== 'RUNNING') return ended(handle, workflowId);
    const status = await handle.query(changeStatusQuery).catch(() => undefined);
    if (status && status.stage !== seen) onStage((seen = status.stage));
    if (status && waitsForDecision(status)) return { workflowId, state: 'waiting', status };
    await sleep(intervalMs);
  }
}

async function ended(handle: ReturnType<Client['workflow']['getHandle']>, workflowId: string): Promise<Followed> {
  try {
    return { workflowId, state: 'ended', result: (await handle.result()) as ChangeResult };
  } catch (err) {
    const error = err instanceof WorkflowFailedError ? rootCauseMessage(err) : String(err);
    const status = await handle.query(changeStatusQuery).catch(() => undefined);
    return { workflowId, state: 'failed', error, ...(status ? { status } : {}) };
  }
}
