import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Cluster, SimVm } from './cluster';
import { formatBytes } from './format-bytes';
import { liveVolumeSnapshot, liveVolumeSnapshotDelete } from './qemu/live-snapshots';
import { powerOff, powerOn, runsQemu } from './qemu/power';
import { createImage } from './qemu-img';
import type { TaskContext } from './tasks';
import { memoryMiB, UNUSED_KEY } from './vm-config';
import { addUnusedVolume, configDisks, configHasFeature, driveVolume } from './vm-drives';
import { rollbackVolume } from './volume-snapshots';

/**
 * VM snapshots as pve-guest-common's AbstractConfig and qemu-server's QemuConfig take them, step by step
 * under the VM's config lock:
 *
 * - create: prepare (`lock: snapshot`, the section written with `snapstate: prepare`, `snaptime`, the
 *   saved state's volume), snapshot every disk, commit (`parent` names the new snapshot);
 * - rollback: `lock: rollback`, the VM stopped, every disk rolled back, the config replaced by the
 *   snapshot's (description and unusedN kept, disks no longer referenced become unusedN, a new vmgenid),
 *   and a VM whose snapshot holds RAM started again;
 * - delete: `lock: snapshot-delete`, `snapstate: delete`, the saved state and each disk snapshot removed,
 *   children re-parented.
 *
 * A snapshot with RAM (`vmstate`) of a running simulated VM allocates the state volume at PVE's size
 * (twice the memory plus 500 MiB, sparse) and records the running machine and CPU; no guest memory is
 * saved, and rolling back "resumes" the simulated VM by marking it running. A VM under real QEMU gets
 * disk snapshots (qemu/live-snapshots.ts); saving its RAM is not simulated and fails the task.
 * PVE's plain `warn`s go to the task log uncounted (only log_warn makes a task end WARNINGS).
 */
export interface SnapshotContext {
  cluster: Cluster;
  vm: SimVm;
  task: TaskContext;
}

/** The keys __snapshot_copy_config leaves out of a snapshot (and out of a rollback's new config). */
const NOT_COPIED = new Set(['snapstate', 'snaptime', 'vmstate', 'lock', 'digest', 'description']);

function copyConfig(source: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(source).filter(([k]) => !NOT_COPIED.has(k) && !UNUSED_KEY.test(k)));
}

const withLock = <T>(ctx: SnapshotContext, fn: () => Promise<T> | T) =>
  ctx.vm.flock.run(ctx.cluster.settings.flockTimeoutMs, async () => fn());

const missing = (name: string) => new Error(`snapshot '${name}' does not exist`);

/** qemu-server's find_vmstate_storage: vmstatestorage, else a shared then a local storage of a disk (file based first), else `local`. */
export function vmstateStorage(cluster: Cluster, config: Record<string, string>): string {
  if (config.vmstatestorage) return config.vmstatestorage;
  let shared: string | undefined;
  let local: string | undefined;
  for (const disk of configDisks(config)) {
    const storage = cluster.storages.get(/^([^:/]+):/.exec(disk.file)?.[1] ?? '');
    if (!storage) continue;
    const fileBased = storage.type !== 'lvmthin';
    if (storage.shared) shared = !shared || fileBased ? storage.id : shared;
    else local = !local || fileBased ? storage.id : local;
  }
  return shared ?? local ?? 'local';
}

/** __snapshot_save_vmstate for a simulated VM: the state volume, and the running machine and CPU. */
async function saveVmstate(ctx: SnapshotContext, snap: Record<string, string>, name: string): Promise<void> {
  const { cluster, vm } = ctx;
  if (runsQemu(cluster, vm))
    throw new Error(
      'saving the RAM of a VM running under real QEMU is not simulated (take the snapshot without vmstate)',
    );
  const storage = cluster.storages.require(vmstateStorage(cluster, vm.config));
  const volid =
    storage.type === 'lvmthin'
      ? `${storage.id}:vm-${vm.vmid}-state-${name}`
      : `${storage.id}:${vm.vmid}/vm-${vm.vmid}-state-${name}.raw`;
  const volume = cluster.storages.resolve(volid, vm.node);
  mkdirSync(path.dirname(volume.file), { recursive: true });
  await createImage(volume.file, 'raw', (memoryMiB(vm.config) * 2 + 500) * 1024 * 1024);
  snap.vmstate = volid;
  Object.assign(snap, runningMachineAndCpu(cluster, vm.config));
}

/** What __snapshot_save_vmstate records of a running VM: its QEMU machine and `-cpu` argument. */
export function runningMachineAndCpu(
  cluster: Cluster,
  config: Record<string, string>,
): { runningmachine: string; runningcpu: string } {
  const version = cluster.flavour === '9.1' ? '10.1' : '9.2';
  return {
    runningmachine: `${/q35/.test(config.machine ?? '') ? 'pc-q35' : 'pc-i440fx'}-${version}+pve0`,
    runningcpu: `${config.cpu ? /^(?:cputype=)?([^,]+)/.exec(config.cpu)![1] : 'x86-64-v2-AES'},enforce,+kvm_pv_eoi,+kvm_pv_unhalt`,
  };
}

/** PVE::QemuConfig->snapshot_create. */
export async function createSnapshot(
  ctx: SnapshotContext,
  name: string,
  saveState: boolean,
  description?: string,
): Promise<void> {
  const { cluster, vm, task } = ctx;
  let snap: Record<string, string> = {};
  await withLock(ctx, async () => {
    if (vm.config.template === '1') throw new Error("you can't take a snapshot if it's a template");
    cluster.checkLock(vm);
    if (vm.snapshots.has(name)) throw new Error(`snapshot name '${name}' already used`);
    if (!configHasFeature(cluster, vm.node, vm.config, 'snapshot'))
      throw new Error('snapshot feature is not available');
    for (const [other, section] of vm.snapshots) {
      if (section.parent === name) {
        task.log(`deleting parent '${name}' reference from '${other}' to avoid bogus snapshot cycle.`);
        delete section.parent;
      }
    }
    vm.config.lock = 'snapshot';
    snap = copyConfig(vm.config);
    vm.snapshots.set(name, snap);
    try {
      if (saveState && vm.status === 'running') await saveVmstate(ctx, snap, name);
    } catch (err) {
      vm.snapshots.delete(name);
      delete vm.config.lock;
      throw err;
    }
    snap.snapstate = 'prepare';
    snap.snaptime = String(Math.floor(Date.now() / 1000));
    if (description) snap.description = description;
  });

  const done = new Set<string>();
  try {
    await task.sleep(cluster.settings.taskMs);
    if (snap.vmstate) {
      task.log(`saving VM state and RAM using storage '${snap.vmstate.split(':')[0]}'`);
      await task.sleep(cluster.settings.taskMs);
      task.log(
        `completed saving the VM state in 1s, saved ${formatBytes(Math.floor((memoryMiB(vm.config) * 1024 * 1024) / 4))}`,
      );
    }
    for (const disk of configDisks(snap)) {
      task.log(`snapshotting 'drive-${disk.key}' (${disk.file})`);
      const volume = driveVolume(cluster, vm.node, disk.file)!;
      await liveVolumeSnapshot(cluster, vm, disk.key, volume, name, task);
      done.add(disk.key);
    }
  } catch (err) {
    task.log('snapshot create failed: starting cleanup');
    try {
      await deleteSnapshot(ctx, name, true, done);
    } catch (cleanup) {
      task.log(cleanup instanceof Error ? cleanup.message : String(cleanup));
    }
    throw err;
  }

  await withLock(ctx, () => {
    if (vm.config.lock !== 'snapshot') throw new Error('missing snapshot lock');
    const section = vm.snapshots.get(name);
    if (!section) throw missing(name);
    if (section.snapstate !== 'prepare') throw new Error('wrong snapshot state');
    delete section.snapstate;
    delete vm.config.lock;
    vm.config.parent = name;
  });
}

/** PVE::QemuConfig->snapshot_rollback, then (with `start`) the VM's start. */
export async function rollbackSnapshot(ctx: SnapshotContext, name: string, start: boolean): Promise<void> {
  const { cluster, vm, task } = ctx;
  const section = () => {
    if (vm.config.template === '1') throw new Error("you can't rollback if vm is a template");
    const snap = vm.snapshots.get(name);
    if (!snap) throw missing(name);
    return snap;
  };
  const snap = await withLock(ctx, async () => {
    const found = section();
    if (found.snapstate) throw new Error(`unable to rollback to incomplete snapshot (snapstate = ${found.snapstate})`);
    cluster.checkLock(vm);
    if (vm.status === 'running') await powerOff(cluster, vm, task, 5);
    if (vm.status === 'running') throw new Error(`unable to rollback vm ${vm.vmid}: vm is running`);
    vm.config.lock = 'rollback';
    return found;
  });

  await task.sleep(cluster.settings.taskMs);
  for (const disk of configDisks(snap)) await rollbackVolume(driveVolume(cluster, vm.node, disk.file)!, name, task);

  await withLock(ctx, async () => {
    section();
    if (vm.config.lock !== 'rollback') throw new Error('got wrong lock');
    const snapVolumes = new Set(configDisks(snap).map((d) => d.file));
    const unused = configDisks(vm.config)
      .map((d) => d.file)
      .filter((file) => !snapVolumes.has(file));
    const kept = Object.fromEntries(
      Object.entries(vm.config).filter(([k]) => UNUSED_KEY.test(k) || k === 'description'),
    );
    vm.config = { ...kept, ...copyConfig(snap), parent: name };
    vm.pending = {};
    vm.pendingDelete.clear();
    for (const volid of unused) addUnusedVolume(vm, volid);
    // __snapshot_rollback_hook: the running machine and CPU are used for the start, a VM generation ID renewed.
    delete vm.config.runningmachine;
    delete vm.config.runningcpu;
    if (vm.config.vmgenid) vm.config.vmgenid = randomUUID();
    if (snap.vmstate) await powerOn(cluster, vm, task);
  });
  if (start && vm.status !== 'running') await powerOn(cluster, vm, task);
}

/**
 * PVE::QemuConfig->snapshot_delete. `force` removes the section even when a disk snapshot cannot be;
 * `onlyDisks` (a failed create's cleanup) deletes just the disk snapshots that were taken, under the
 * create's `snapshot` lock.
 */
export async function deleteSnapshot(
  ctx: SnapshotContext,
  name: string,
  force: boolean,
  onlyDisks?: Set<string>,
): Promise<void> {
  const { cluster, vm, task } = ctx;
  const expectedLock = onlyDisks ? 'snapshot' : 'snapshot-delete';
  const ensureLock = () => {
    if (vm.config.lock !== expectedLock) throw new Error(`encountered invalid lock, expected '${expectedLock}'`);
  };
  if (!vm.snapshots.has(name)) throw missing(name);
  if (!onlyDisks) {
    await withLock(ctx, () => {
      cluster.checkLock(vm);
      vm.config.lock = 'snapshot-delete';
    });
  }
  const snap = await withLock(ctx, () => {
    ensureLock();
    if (vm.config.template === '1') throw new Error("you can't delete a snapshot if vm is a template");
    const found = vm.snapshots.get(name);
    if (!found) throw missing(name);
    found.snapstate = 'delete';
    return found;
  });

  const attempt = async (what: () => Promise<void>) => {
    try {
      await what();
    } catch (err) {
      if (!force) throw err;
      task.log(err instanceof Error ? err.message : String(err)); // a plain warn: not counted
    }
  };
  if (snap.vmstate) {
    await attempt(async () => {
      const state = cluster.storages.resolve(snap.vmstate!, vm.node);
      rmSync(state.file, { force: true });
    });
    if (!force) delete snap.vmstate;
  }
  const unused: string[] = [];
  for (const disk of configDisks(snap)) {
    if (!onlyDisks || onlyDisks.has(disk.key)) {
      const volume = driveVolume(cluster, vm.node, disk.file)!;
      const attachedAs = configDisks(vm.config).find((d) => d.file === disk.file)?.key;
      await attempt(() => liveVolumeSnapshotDelete(cluster, vm, attachedAs, volume, name, task));
    }
    if (!force) delete snap[disk.key];
    unused.push(disk.file);
  }

  await withLock(ctx, () => {
    ensureLock();
    if (!vm.snapshots.has(name)) throw missing(name);
    const parent = snap.parent;
    for (const config of [vm.config, ...[...vm.snapshots].filter(([n]) => n !== name).map(([, s]) => s)]) {
      if (config.parent !== name) continue;
      if (parent) config.parent = parent;
      else delete config.parent;
    }
    vm.snapshots.delete(name);
    delete vm.config.lock;
    for (const volid of unused) addUnusedVolume(vm, volid);
  });
}
