import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Cluster, SimVm } from './cluster';
import { qmpCommand } from '../qemu/qmp';
import { qemuRuntime } from './qemu/runtime';
import { createImage } from './qemu-img';
import type { TaskContext } from './tasks';
import { memoryMiB } from './vm-config';
import { runningMachineAndCpu, vmstateStorage } from './vm-snapshots';

/**
 * qemu-server's RunState: pause and resume (QMP stop/cont; a simulated VM keeps a `paused` flag that
 * status/current reports as qmpstatus), and suspend to disk — the RAM saved into a state volume
 * `vm-<vmid>-state-suspend-<date>` (here allocated at PVE's size, nothing saved), `lock: suspended`,
 * `vmstate` in the config, the VM stopped — which the next start or resume undoes. Suspending a VM under
 * real QEMU to disk is not simulated.
 */
export async function pauseVm(cluster: Cluster, vm: SimVm): Promise<void> {
  const qmp = qemuRuntime(cluster)?.get(vm.vmid)?.qmp;
  if (qmp) await qmpCommand(qmp, 'stop');
  vm.paused = true;
}

export async function resumeVm(cluster: Cluster, vm: SimVm): Promise<void> {
  const qmp = qemuRuntime(cluster)?.get(vm.vmid)?.qmp;
  if (qmp) await qmpCommand(qmp, 'cont');
  vm.paused = false;
}

export async function suspendToDisk(
  cluster: Cluster,
  vm: SimVm,
  task: TaskContext,
  statestorage?: string,
): Promise<void> {
  if (qemuRuntime(cluster)?.isRunning(vm.vmid))
    throw new Error('suspending a VM running under real QEMU to disk is not simulated');
  vm.config.lock = 'suspending';
  const storage = cluster.storages.require(statestorage ?? vmstateStorage(cluster, vm.config));
  const name = `vm-${vm.vmid}-state-suspend-${new Date().toISOString().slice(0, 10)}`;
  const volume = cluster.storages.resolve(
    storage.type === 'lvmthin' ? `${storage.id}:${name}` : `${storage.id}:${vm.vmid}/${name}.raw`,
    vm.node,
  );
  mkdirSync(path.dirname(volume.file), { recursive: true });
  await createImage(volume.file, 'raw', (memoryMiB(vm.config) * 2 + 500) * 1024 * 1024);
  task.log(`suspend vm to storage '${storage.id}'`);
  Object.assign(vm.config, { vmstate: volume.volid, ...runningMachineAndCpu(cluster, vm.config) });
  vm.config.lock = 'suspended';
  vm.status = 'stopped';
  vm.startedMs = undefined;
  vm.paused = false;
}

/** After a start of a VM suspended to disk: its saved state is used up (volume and keys removed, unlocked). */
export function finishResumeFromDisk(cluster: Cluster, vm: SimVm): void {
  if (vm.config.lock !== 'suspended' || !vm.config.vmstate) return;
  rmSync(cluster.storages.resolve(vm.config.vmstate, vm.node).file, { force: true });
  for (const key of ['vmstate', 'runningmachine', 'runningcpu', 'lock']) delete vm.config[key];
}
