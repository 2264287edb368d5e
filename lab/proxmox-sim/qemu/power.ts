import { fail } from '../api-error';
import type { Cluster, SimVm } from '../cluster';
import type { TaskContext } from '../tasks';
import { guestAgentSettings } from './command-line';
import { qemuRuntime } from './runtime';
import { cloudInitDrive } from './cloud-init';
import { recordCloudInit } from '../cloud-init-pending';
import { applyPending, hasPending } from '../pending';
import { parseHotplugFeatures } from '../hotplug-features';
import { memoryCommandLine } from './memory';
import { hostPhysicalBits } from './host-bits';

/**
 * The power handlers' work for both kinds of VM: a VM whose boot disk holds a bootable image runs under
 * real QEMU (runtime.ts); any other VM keeps the simulated power state it always had.
 */
const markStopped = (vm: SimVm) => {
  vm.status = 'stopped';
  vm.startedMs = undefined;
  vm.paused = false;
};

/**
 * After a stop or shutdown through the API: _do_vm_stop's vm_stop_cleanup(…, apply_pending_changes = 1)
 * applies what was pending (a guest that powers itself off does not: qmeventd's cleanup passes 0).
 */
export function stoppedByApi(cluster: Cluster, vm: SimVm, task: TaskContext): void {
  markStopped(vm);
  if (hasPending(vm)) applyPending({ cluster, vm, user: 'root@pam', task });
}

/** status/start, once the config lock is held and pending changes are applied. */
export async function powerOn(cluster: Cluster, vm: SimVm, task: TaskContext): Promise<void> {
  if (vm.config.template === '1') throw new Error("you can't start a vm if it's a template"); // qemu-server's vm_start
  // config_to_command's memory checks (memory hotplug needs NUMA, 1024 MiB, DIMM-aligned memory), for every VM.
  memoryCommandLine(vm.config, parseHotplugFeatures(vm.config.hotplug).memory, hostPhysicalBits());
  vm.paused = false;
  if (cloudInitDrive(vm.vmid, vm.config)) recordCloudInit(vm); // vm_start generates the cloud-init drive
  const runtime = qemuRuntime(cluster);
  if (runtime && (await runtime.bootDisk(cluster, vm))) {
    const instance = await runtime.start(cluster, vm, task, () => {
      if (cluster.vms.get(vm.vmid) === vm) markStopped(vm);
    });
    vm.status = 'running';
    vm.startedMs = instance.startedMs;
    return;
  }
  vm.status = 'running';
  vm.startedMs = Date.now();
}

/** Whether the VM runs under real QEMU. */
export const runsQemu = (cluster: Cluster, vm: SimVm) => qemuRuntime(cluster)?.isRunning(vm.vmid) ?? false;

/** status/stop (vm_stop with force): QMP quit, then SIGTERM/SIGKILL if QEMU lingers. */
export async function powerOff(cluster: Cluster, vm: SimVm, task: TaskContext, timeoutS?: number): Promise<void> {
  if (vm.status !== 'running') return markStopped(vm); // _do_vm_stop: no process, nothing to do
  const runtime = qemuRuntime(cluster);
  if (runtime?.isRunning(vm.vmid)) await runtime.doVmStop(vm, { shutdown: false, force: true, timeoutS }, task);
  stoppedByApi(cluster, vm, task);
}

/**
 * status/shutdown's check before its worker starts (qemu-server's vm_is_paused): a paused guest cannot
 * take a shutdown request; with forceStop the task stops it instead. Returns whether to stop instead.
 */
export async function shutdownPrecheck(cluster: Cluster, vm: SimVm, forceStop: boolean): Promise<boolean> {
  if (vm.status === 'running' && vm.paused && !forceStop) throw fail('VM is paused - cannot shutdown'); // a simulated pause
  const runtime = qemuRuntime(cluster);
  if (!runtime?.isRunning(vm.vmid)) return false;
  const status = await runtime.qmpStatus(vm.vmid);
  if (status !== 'paused' && status !== 'prelaunch') return false;
  if (!forceStop) throw fail('VM is paused - cannot shutdown');
  return true;
}

/** status/shutdown of a real guest: the agent's guest-shutdown or ACPI, then wait, then (forceStop) kill. */
export async function shutdownQemu(
  cluster: Cluster,
  vm: SimVm,
  task: TaskContext,
  options: { timeoutS?: number; forceStop: boolean; stopInstead: boolean },
): Promise<void> {
  const runtime = qemuRuntime(cluster)!;
  if (options.stopInstead) task.warn('VM is paused - stop instead of shutdown');
  await runtime.doVmStop(
    vm,
    { shutdown: !options.stopInstead, force: options.forceStop, timeoutS: options.timeoutS },
    task,
  );
  stoppedByApi(cluster, vm, task);
}

/** status/current's live fields for a real guest: QEMU's pid, uptime from /proc, query-status, the QEMU version. */
export async function liveStatus(cluster: Cluster, vm: SimVm): Promise<Record<string, unknown>> {
  const runtime = qemuRuntime(cluster);
  const instance = runtime?.get(vm.vmid);
  const agent = guestAgentSettings(vm.config.agent) ? { agent: 1 } : {};
  if (!runtime || !instance) return agent;
  const qmpstatus = (await runtime.qmpStatus(vm.vmid)) ?? vm.status;
  return {
    ...agent,
    pid: instance.pid,
    uptime: runtime.uptime(vm.vmid),
    qmpstatus,
    ...(instance.qemuVersion ? { 'running-qemu': instance.qemuVersion } : {}),
  };
}
