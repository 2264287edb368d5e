import { fail, paramError } from '../api-error';
import type { SimVm } from '../cluster';
import { haConfig } from '../ha/state';
import { qmpCommand } from '../../qemu/qmp';
import { powerOn, runsQemu, shutdownQemu } from '../qemu/power';
import { qemuRuntime } from '../qemu/runtime';
import { applyPending } from '../pending';
import { finishResumeFromDisk, pauseVm, resumeVm, suspendToDisk } from '../vm-suspend';
import { startTask, type RouteTable, type SimRequest } from './types';

/**
 * `status/reset`, `status/reboot`, `status/suspend` and `status/resume` (qemu-server's vm_reset,
 * vm_reboot, vm_suspend, vm_resume): PVE's early checks, then the task (`qmreset`, `qmreboot`, `qmpause`
 * or `qmsuspend` with todisk, `qmresume`). A reboot shuts the guest down (as status/shutdown without
 * forceStop) and starts it again with its pending changes, which qmeventd does on PVE.
 */
const vmOf = (req: SimRequest): SimVm => req.cluster.vm(req.params.node!, Number(req.params.vmid));

function rootOnly(req: SimRequest, ...names: string[]): void {
  for (const name of names)
    if (req.params[name] === '1' && req.user !== 'root@pam')
      throw paramError({ [name]: 'Only root may use this option.' });
}

function requireRunning(vm: SimVm): void {
  if (vm.status !== 'running') throw fail(`VM ${vm.vmid} not running`);
}

const underLock = <T>(req: SimRequest, vm: SimVm, fn: () => Promise<T>) =>
  vm.flock.run(req.cluster.settings.flockTimeoutMs, fn);

/** A simulated guest's ACPI shutdown (it powers off after guestShutdownMs, or ignores it). */
async function shutdownSimulated(
  req: SimRequest,
  vm: SimVm,
  timeoutS: number,
  sleep: (ms: number) => Promise<void>,
): Promise<void> {
  if (!vm.guestAcpi || req.cluster.settings.guestShutdownMs > timeoutS * 1000) {
    await sleep(timeoutS * 1000);
    throw new Error('VM quit/powerdown failed - got timeout');
  }
  await sleep(req.cluster.settings.guestShutdownMs);
  vm.status = 'stopped';
  vm.startedMs = undefined;
}

export const powerStateRoutes: RouteTable = {
  'POST /nodes/{node}/qemu/{vmid}/status/reset': (req) => {
    rootOnly(req, 'skiplock');
    const vm = vmOf(req);
    requireRunning(vm);
    return startTask(req, { node: vm.node, type: 'qmreset', id: String(vm.vmid) }, () =>
      underLock(req, vm, async () => {
        req.cluster.checkLock(vm, req.params.skiplock);
        const qmp = qemuRuntime(req.cluster)?.get(vm.vmid)?.qmp;
        if (qmp) await qmpCommand(qmp, 'system_reset');
      }),
    ).upid;
  },

  'POST /nodes/{node}/qemu/{vmid}/status/reboot': (req) => {
    const vm = vmOf(req);
    if (vm.status === 'running' && vm.paused) throw fail('VM is paused - cannot shutdown');
    requireRunning(vm);
    const timeoutS = req.params.timeout === undefined ? undefined : Number(req.params.timeout);
    return startTask(req, { node: vm.node, type: 'qmreboot', id: String(vm.vmid) }, (task) =>
      underLock(req, vm, async () => {
        if (vm.status !== 'running') return; // only a running VM reboots
        if (runsQemu(req.cluster, vm))
          await shutdownQemu(req.cluster, vm, task, { timeoutS, forceStop: false, stopInstead: false });
        else await shutdownSimulated(req, vm, timeoutS ?? 60, task.sleep);
        applyPending({ cluster: req.cluster, vm, user: req.user, task });
        await powerOn(req.cluster, vm, task);
      }),
    ).upid;
  },

  'POST /nodes/{node}/qemu/{vmid}/status/suspend': (req) => {
    rootOnly(req, 'skiplock');
    const vm = vmOf(req);
    const todisk = req.params.todisk === '1';
    requireRunning(vm);
    if (todisk) {
      if (haConfig(req.cluster).resources.has(`vm:${vm.vmid}`)) throw fail('Cannot suspend HA managed VM to disk');
      if (Object.keys(vm.config).some((k) => /^hostpci\d+$/.test(k))) {
        throw fail(
          'cannot suspend VM to disk due to passed-through PCI device(s), which lack the possibility to save/restore their internal state',
        );
      }
    }
    return startTask(req, { node: vm.node, type: todisk ? 'qmsuspend' : 'qmpause', id: String(vm.vmid) }, (task) =>
      underLock(req, vm, async () => {
        req.cluster.checkLock(vm, req.params.skiplock);
        if (todisk) await suspendToDisk(req.cluster, vm, task, req.params.statestorage);
        else await pauseVm(req.cluster, vm);
      }),
    ).upid;
  },

  'POST /nodes/{node}/qemu/{vmid}/status/resume': (req) => {
    rootOnly(req, 'skiplock', 'nocheck');
    const vm = vmOf(req);
    const fromDisk = vm.config.lock === 'suspended';
    if (!fromDisk) requireRunning(vm);
    return startTask(req, { node: vm.node, type: 'qmresume', id: String(vm.vmid) }, (task) =>
      underLock(req, vm, async () => {
        if (fromDisk) {
          await powerOn(req.cluster, vm, task);
          finishResumeFromDisk(req.cluster, vm);
          return;
        }
        if (!vm.paused) return; // "job done, go home"
        if (req.params.skiplock !== '1' && vm.config.lock !== 'backup') req.cluster.checkLock(vm);
        await resumeVm(req.cluster, vm);
      }),
    ).upid;
  },
};
