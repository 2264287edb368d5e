/**
 * `changeVm`: one durable workflow per Proxmox VM (`change-<vmid>`) keeps a built VM equal to its NetBox
 * record. This file holds what its starters share: the type name, the id, the start input and the edits
 * NetBox reports. Nothing here carries a secret: start input and signals are in the history.
 */

/** The workflow type starters name (the receiver starts it by name: it sits below workflows/). */
export const CHANGE_VM_WORKFLOW_TYPE = 'changeVm';

/** One workflow per VM: starting or signalling twice finds the same one, so a burst of edits lands on one plan. */
export function changeVmWorkflowId(vmid: number): string {
  return `change-${vmid}`;
}

/** The NetBox models whose edits reach `changeVm`: a VM, its interfaces and its virtual disks. */
export const NETBOX_EDIT_MODELS = [
  'virtualization.virtualmachine',
  'virtualization.vminterface',
  'virtualization.virtualdisk',
] as const;
export type NetboxEditModel = (typeof NETBOX_EDIT_MODELS)[number];

/** NetBox's webhook `event` for an object change (its `object_created` … event types). */
export const NETBOX_EDIT_EVENTS = ['created', 'updated', 'deleted'] as const;
export type NetboxEditEvent = (typeof NETBOX_EDIT_EVENTS)[number];

/** What started a `changeVm` run. */
export interface ChangeTrigger {
  source: 'netbox-webhook';
  /** NetBox's request id (`X-Request-ID`, the change log's `request_id`), when the edit came through a request. */
  requestId?: string;
  /** When NetBox says the event happened (ISO 8601, NetBox's `timestamp`). */
  at: string;
}

/** The start input of `changeVm`. */
export interface ChangeVmInput {
  /** The NetBox VM (its id): the record the VM is kept equal to. */
  netboxId: number;
  /** The Proxmox VMID (`ferry_vmid`); also in the workflow id. */
  vmid: number;
  trigger: ChangeTrigger;
}

/**
 * One edit NetBox reported (the `netboxEdited` signal). It says only what changed, not how: events can
 * arrive late, twice or out of order, so `changeVm` reads the record again before it plans.
 */
export interface NetboxEdit {
  model: NetboxEditModel;
  /** The id of the edited object: the VM, the interface or the virtual disk. */
  objectId: number;
  event: NetboxEditEvent;
  /** NetBox's timestamp of the event (ISO 8601). */
  at: string;
  requestId?: string;
}
