import { changeVmWorkflowId, type ChangeVmInput, type NetboxEdit } from '../change-vm';
import { PVE_VMID_MAX, PVE_VMID_MIN } from '../vmid';
import type { NetboxEvent, VmFacts } from './payload';

/** NetBox statuses another workflow owns: a `planned` record is still to be built by `provisionVm`. */
const OWNED_ELSEWHERE: Readonly<Record<string, string>> = {
  planned: 'provisioning builds it (provisionVm), not changeVm',
};

export type ChangeDecision =
  { kind: 'signal'; workflowId: string; start: ChangeVmInput; edit: NetboxEdit } | { kind: 'ignore'; reason: string };

/**
 * Whether a NetBox edit goes to the VM's `changeVm`, and with what. `vm` is what NetBox says about the
 * VM (from the payload of a VM event, else read), or `gone` when NetBox no longer has it. Ignored, with
 * the reason: a deleted VM (teardown owns it), a VM without a VMID (not ferry's), a `planned` one.
 */
export function changeDecision(event: NetboxEvent, vm: VmFacts | 'gone'): ChangeDecision {
  const { edit, vmNetboxId } = event;
  if (edit.model === 'virtualization.virtualmachine' && edit.event === 'deleted')
    return {
      kind: 'ignore',
      reason: `NetBox VM ${vmNetboxId} was deleted: teardown (teardownVm) owns that, not changeVm`,
    };
  if (vm === 'gone')
    return {
      kind: 'ignore',
      reason: `NetBox VM ${vmNetboxId} no longer exists: teardown (teardownVm) owns that, not changeVm`,
    };
  if (vm.vmid === undefined || vm.vmid === null)
    return { kind: 'ignore', reason: `NetBox VM ${vmNetboxId} has no ferry_vmid: not a VM ferry built` };
  if (!Number.isInteger(vm.vmid) || (vm.vmid as number) < PVE_VMID_MIN || (vm.vmid as number) > PVE_VMID_MAX)
    return {
      kind: 'ignore',
      reason: `NetBox VM ${vmNetboxId} has ferry_vmid ${JSON.stringify(vm.vmid)}, not a VMID (${PVE_VMID_MIN}–${PVE_VMID_MAX})`,
    };
  const owner = OWNED_ELSEWHERE[vm.status];
  if (owner) return { kind: 'ignore', reason: `NetBox VM ${vmNetboxId} is ${vm.status}: ${owner}` };
  const vmid = vm.vmid as number;
  const trigger = {
    source: 'netbox-webhook' as const,
    ...(edit.requestId ? { requestId: edit.requestId } : {}),
    at: edit.at,
  };
  return {
    kind: 'signal',
    workflowId: changeVmWorkflowId(vmid),
    start: { netboxId: vmNetboxId, vmid, trigger },
    edit,
  };
}

/** One line for the receiver's log: what was edited, where it came from. */
export function describeEdit(edit: NetboxEdit, vmNetboxId: number): string {
  const what = edit.model.split('.')[1];
  const of = edit.model === 'virtualization.virtualmachine' ? '' : ` of NetBox VM ${vmNetboxId}`;
  return `${edit.event} ${what} ${edit.objectId}${of}${edit.requestId ? ` (request ${edit.requestId})` : ''}`;
}
