import type { Baseline } from './baseline';
import type { ChangeClass, ChangeOperation, PlannedChange } from './change';
import type { Decision, FieldDelta } from './decide';
import type { ChangePolicy } from './policy';
import type { RealityViews } from './reality';
import type { StorageRoom } from './storage-room';

/** Where each rule is, in proxmox/qemu-server (read at 9.2.6), or ferry's own. */
export const RULES = {
  hotplugPending: 'PVE/QemuServer.pm vmconfig_hotplug_pending',
  applyPending: 'PVE/QemuServer.pm vmconfig_apply_pending',
  updateNet: 'PVE/QemuServer.pm vmconfig_update_net',
  updateDisk: 'PVE/QemuServer.pm vmconfig_update_disk',
  netdevice: 'PVE/QemuServer.pm print_netdevice_full',
  cpuHotplug: 'PVE/QemuServer.pm qemu_cpu_hotplug',
  memoryHotplug: 'PVE/QemuServer/Memory.pm qemu_memory_hotplug',
  memoryConfig: 'PVE/QemuServer/Memory.pm config',
  dimms: 'PVE/QemuServer/Memory.pm foreach_dimm',
  updateVm: 'PVE/API2/Qemu.pm update_vm_api',
  resize: 'PVE/API2/Qemu.pm resize_vm',
  moveDisk: 'PVE/API2/Qemu.pm move_vm_disk',
  policy: 'ferry change policy',
  ferry: 'ferry',
} as const;

/** What every rule sees: the VM both ways, its power, the baseline, the policy and the storage room. */
export interface PlanContext {
  running: boolean;
  views: RealityViews;
  /** Keys with a pending value or deletion. */
  pendingKeys: ReadonlySet<string>;
  baseline: Baseline;
  policy: ChangePolicy;
  room: StorageRoom;
}

/** A class and its reason, as a rule decides it. */
export interface Verdict {
  class: ChangeClass;
  why: string;
  rule: string;
  operation?: ChangeOperation;
  waitsForRestart?: boolean;
}

/** A change from a delta, the decision on it and the rule's verdict. */
export function plannedChange(
  delta: FieldDelta,
  decision: Decision & { act: 'apply' | 'report' },
  verdict: Verdict,
): PlannedChange {
  const reported = decision.act === 'report';
  const cls: ChangeClass = reported ? 'reported' : verdict.class;
  const alreadyPending = !reported && decision.pendingHoldsIt && cls === 'at-restart';
  const operation = reported || cls === 'refused' ? undefined : verdict.operation;
  return {
    id: delta.id,
    kind: delta.kind,
    ...(delta.slot !== undefined ? { slot: delta.slot } : {}),
    ...(delta.current !== undefined ? { from: delta.current } : {}),
    ...(delta.want !== undefined ? { to: delta.want } : {}),
    ...pendingOf(delta),
    side: decision.side,
    class: cls,
    why: reported ? decision.why : verdict.why,
    rule: reported ? RULES.policy : verdict.rule,
    ...(operation ? { operation } : {}),
    waitsForRestart: !reported && (cls === 'at-restart' || (verdict.waitsForRestart ?? false)),
    ...(alreadyPending ? { alreadyPending: true } : {}),
  };
}

export function refused(why: string, rule: string): Verdict {
  return { class: 'refused', why, rule };
}

function pendingOf(delta: FieldDelta): Pick<PlannedChange, 'pending' | 'pendingDelete'> {
  if (delta.effective === delta.current) return {};
  return delta.effective === undefined ? { pendingDelete: true } : { pending: delta.effective };
}
