import { workflowInfo } from '@temporalio/workflow';
import { mergeTargets, type TeardownTarget } from '../../../src/domain/provisioning';
import type { TeardownVmInput } from '../../teardown-vm';
import type { TeardownRun } from '../run-context';

/** What the VM has now (Proxmox, NetBox, DNS), filled in by what an earlier incomplete run of this teardown found. */
export async function readTarget(
  { acts, status, named }: TeardownRun,
  input: TeardownVmInput,
): Promise<TeardownTarget> {
  const { vmid } = input;
  const live = await acts.read.readTeardownTarget.executeWithOptions(
    { summary: `what VM ${vmid} has in Proxmox, NetBox and DNS` },
    [{ vmid, ...(input.netboxId !== undefined ? { netboxId: input.netboxId } : {}) }],
  );
  const { workflowId, runId } = workflowInfo();
  const previous = await acts.read.previousTeardown.executeWithOptions(
    { summary: `what an earlier run of ${workflowId} left` },
    [{ workflowId, runId }],
  );
  const target = mergeTargets(live, previous);
  status.target = target;
  if (previous) status.resumed = true;
  if (target.name) status.name = target.name;
  if (target.netboxId !== undefined) status.netboxId = target.netboxId;
  if (target.name) named(target.name, vmid);
  return target;
}
