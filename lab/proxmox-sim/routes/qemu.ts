import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ApiError, fail } from '../api-error';
import { configDigest, type SimVm } from '../cluster';
import { checkHaBeforeDestroy, haConfig, purgeHaOnDestroy } from '../ha/state';
import { convertImage } from '../qemu-img';
import { DISK_KEY, UNUSED_KEY, volumeOf, writeNewConfig, type LiveImport, type WriteContext } from '../vm-config';
import { applyPending } from '../pending';
import { parseConfigUpdate, resolveReverts, runConfigUpdate } from '../config-update';
import { checkConfigUpdate } from '../access/route-checks';
import { liveDevicesOf } from '../qemu/live-qemu';
import { hostPhysicalBits } from '../qemu/host-bits';
import { resizeDisk } from '../vm-resize';
import { checkDrives } from '../drive-checks';
import { defaultBootOrder, qemuVmStatus } from '../guest-stats';
import type { TaskContext } from '../tasks';
import { simulateCopy } from '../copy-log';
import { int, startTask, type RouteTable, type SimRequest } from './types';
import { liveStatus, powerOff, powerOn, runsQemu, shutdownPrecheck, shutdownQemu, stoppedByApi } from '../qemu/power';
import { qemuRuntime } from '../qemu/runtime';
import { startLiveRestore } from '../qemu/live-restore';
import { typedConfig as typedConfigOf } from '../typed-config';
import { assertBaseVolumesUnused, snapshotStateVolumes } from '../vm-destroy';
import { snapshotConfigAnswer } from './snapshots';
import { finishResumeFromDisk } from '../vm-suspend';
import { recordCloudInit } from '../cloud-init-pending';
import { moveDisk } from '../move-disk';

/** /nodes/{node}/qemu…: VM create, config, disks, power and destroy, as qemu-server answers them. */
const vmOf = (req: SimRequest): SimVm => req.cluster.vm(req.params.node!, Number(req.params.vmid));
const ctxOf = (req: SimRequest, vm: SimVm): WriteContext => ({ cluster: req.cluster, vm, user: req.user });

function typedConfig(req: SimRequest, config: Record<string, string>): Record<string, string | number> {
  return typedConfigOf(req.cluster, config);
}

function checkDigest(
  vm: SimVm,
  digest: string | undefined,
  message = 'checksum mismatch (file change by other user?)',
): void {
  if (digest !== undefined && digest !== configDigest(vm)) throw fail(message);
}

/**
 * update_vm_api: `PUT` does the work in the request (a hotplug failure answers 400 with the reasons per
 * option), `POST` in a `qmconfig` task (which then fails "400 Parameter verification failed. <key>: <why>").
 */
async function writeConfig(req: SimRequest, asTask: boolean, params = req.params): Promise<string | null> {
  const vm = vmOf(req);
  const { cluster } = req;
  const update = parseConfigUpdate(cluster, vm.vmid, params, req.user);
  checkConfigUpdate(req, update);
  checkDrives(cluster, vm.node, update.set);
  const preflight = () => {
    checkDigest(vm, params.digest);
    if (!update.skiplock) cluster.checkLock(vm);
  };
  const live = () => ({ devices: liveDevicesOf(cluster, vm), hostBits: hostPhysicalBits() });
  if (!asTask) {
    await vm.flock.run(cluster.settings.flockTimeoutMs, async () => {
      preflight();
      resolveReverts(vm, update);
      await runConfigUpdate(ctxOf(req, vm), update, live);
    });
    return null;
  }
  // update_vm_api's checks under the lock run in the request, then the worker (which keeps the lock).
  await vm.flock.run(cluster.settings.flockTimeoutMs, async () => {
    preflight();
    resolveReverts(vm, update);
  });
  const task = startTask(req, { node: vm.node, type: 'qmconfig', id: String(vm.vmid) }, (task) =>
    vm.flock.run(cluster.settings.flockTimeoutMs, async () => {
      preflight();
      await task.sleep(cluster.settings.taskMs);
      await runConfigUpdate({ ...ctxOf(req, vm), task }, update, live).catch((err: unknown) => {
        throw err instanceof ApiError && err.errors ? new Error(workerErrorText(err)) : err;
      });
    }),
  );
  const delay = params.background_delay;
  if (delay !== undefined) {
    const finished = await Promise.race([
      task.done.then(() => true),
      new Promise<false>((r) => setTimeout(() => r(false), Number(delay) * 1000)),
    ]);
    if (finished && task.exitstatus === 'OK') return null;
    if (finished) throw fail(`failed to update VM ${vm.vmid}: ${task.exitstatus}`);
  }
  return task.upid;
}

/** A PVE::Exception with errors as a worker's exit status: `400 <message> <key>: <why> …`, one line. */
function workerErrorText(err: ApiError): string {
  let text = `${err.status} ${err.message}\n`;
  for (const [key, why] of Object.entries(err.errors ?? {})) text += `${key}: ${why}\n`;
  return text.replace(/\n$/, '').replace(/\n/g, ' ');
}

/** vm_status: vmstatus with `full` (qemuVmStatus), the HA service status, `agent` when enabled (liveStatus adds it). */
function vmStatus(req: SimRequest, vm: SimVm) {
  const ha = haConfig(req.cluster).resources.get(`vm:${vm.vmid}`);
  return {
    ...qemuVmStatus(req.cluster, vm, true),
    ha: ha ? { managed: 1, state: ha.state ?? 'started' } : { managed: 0 },
  };
}

function stop(vm: SimVm): void {
  vm.status = 'stopped';
  vm.startedMs = undefined;
}

export const qemuRoutes: RouteTable = {
  'POST /nodes/{node}/qemu': async (req) => {
    const { cluster } = req;
    const node = req.params.node!;
    cluster.requireNode(node);
    const vmid = Number(req.params.vmid);
    const existing = cluster.vms.get(vmid);
    if (existing || cluster.vmidTaken(vmid)) {
      throw fail(`unable to create VM ${vmid} - VM ${vmid} already exists on node '${existing?.node ?? node}'`);
    }
    const { node: _n, vmid: _v, start, storage: _s, 'live-restore': liveRestore, pool, ...settings } = req.params;
    if (pool !== undefined && !cluster.pools.has(pool))
      throw new ApiError(403, `Permission check failed (pool '${pool}' does not exist)`);
    checkDrives(cluster, node, settings);
    const vm = cluster.newVm(node, vmid, { lock: 'create' });
    const live = liveRestore === '1' ? { imports: [] as LiveImport[] } : undefined;
    let started = false;
    const task = startTask(
      req,
      { node, type: 'qmcreate', id: String(vmid) },
      async (ctx) => {
        await ctx.sleep(cluster.settings.createTaskMs);
        try {
          await writeNewConfig({ cluster, vm, user: req.user, task: ctx, live }, settings);
        } catch (err) {
          destroyVolumes(req, vm, false);
          cluster.vms.delete(vmid);
          throw new Error(`unable to create VM ${vmid} - ${err instanceof Error ? err.message : String(err)}`);
        }
        const boot = vm.config.boot === undefined ? defaultBootOrder(vm.config) : undefined;
        vm.config = {
          ...vm.config,
          ...(boot ? { boot } : {}),
          smbios1: `uuid=${crypto.randomUUID()}`,
          vmgenid: crypto.randomUUID(),
          meta: `creation-qemu=${cluster.flavour === '9.1' ? '10.1.2' : '9.2.0'},ctime=${Math.floor(Date.now() / 1000)}`,
        };
        delete vm.config.lock;
        recordCloudInit(vm);
        if (pool !== undefined) cluster.pools.get(pool)?.vms.add(vmid);
        vm.createdMs = Date.now();
        // live-restore without an import-from disk is no live import: qemu-server then creates the VM and,
        // since it skips the autostart whenever live-restore is set, leaves it stopped.
        if (live && live.imports.length > 0) {
          started = true;
          return liveImport(req, vm, live.imports, ctx);
        }
        if (start === '1' && !live) {
          vm.status = 'running';
          vm.startedMs = Date.now();
        }
      },
      // A create that failed leaves nothing, as qemu-server removes the config; a live import that
      // failed after the start leaves the VM, stopped and locked.
      () => {
        if (!started) cluster.vms.delete(vmid);
      },
    );
    return task.upid;
  },

  'GET /nodes/{node}/qemu/{vmid}/config': (req) => {
    const vm = vmOf(req);
    if (req.params.snapshot !== undefined) return snapshotConfigAnswer(req, vm);
    let config = { ...vm.config };
    if (req.params.current !== '1') {
      for (const key of vm.pendingDelete.keys()) delete config[key];
      config = { ...config, ...vm.pending };
    }
    if (config.cipassword !== undefined) config.cipassword = '**********';
    return { ...typedConfig(req, config), digest: configDigest(vm) };
  },

  // vm_pending → config_with_pending_array (pve-guest-common GuestHelpers.pm): every current key with its
  // value (and the pending value or deletion mark), then the keys only pending, then deletions of keys the
  // config lacks, whose mark is always 2 there (the loop tests the parsed entry, a hash, for `force`).
  'GET /nodes/{node}/qemu/{vmid}/pending': (req) => {
    const vm = vmOf(req);
    const keys = new Set([...Object.keys(vm.config), ...Object.keys(vm.pending), ...vm.pendingDelete.keys()]);
    keys.add('digest');
    const current: Record<string, string | number> = { ...typedConfig(req, vm.config), digest: configDigest(vm) };
    const pending = typedConfig(req, vm.pending);
    if (current.cipassword !== undefined) current.cipassword = '**********';
    if (pending.cipassword !== undefined) pending.cipassword = '********** '; // sic: vm_pending masks it with a trailing space
    const deletion = (key: string) => (key in current ? (vm.pendingDelete.get(key) ? 2 : 1) : 2);
    return [...keys].sort().map((key) => ({
      key,
      ...(key in current ? { value: current[key] } : {}),
      ...(key in pending ? { pending: pending[key] } : {}),
      ...(vm.pendingDelete.has(key) ? { delete: deletion(key) } : {}),
    }));
  },

  'PUT /nodes/{node}/qemu/{vmid}/config': (req) => writeConfig(req, false),
  'POST /nodes/{node}/qemu/{vmid}/config': (req) => writeConfig(req, true),

  // unlink: update_vm with `delete` = idlist (and `force`), in the request.
  'PUT /nodes/{node}/qemu/{vmid}/unlink': async (req) => {
    const { idlist, ...rest } = req.params;
    return writeConfig(req, false, { ...rest, delete: idlist! });
  },

  'PUT /nodes/{node}/qemu/{vmid}/resize': (req) => resizeDisk(req, vmOf(req), liveDevicesOf),

  'POST /nodes/{node}/qemu/{vmid}/move_disk': (req) => moveDisk(req, vmOf(req)),

  'GET /nodes/{node}/qemu/{vmid}/status/current': async (req) => {
    const vm = vmOf(req);
    return { ...vmStatus(req, vm), ...(await liveStatus(req.cluster, vm)) };
  },

  'POST /nodes/{node}/qemu/{vmid}/status/start': (req) => {
    const vm = vmOf(req);
    const { cluster } = req;
    if (vm.config.lock !== 'suspended') cluster.checkLock(vm, req.params.skiplock); // vm_start resumes a VM suspended to disk
    return startTask(req, { node: vm.node, type: 'qmstart', id: String(vm.vmid) }, (task) =>
      vm.flock.run(cluster.settings.flockTimeoutMs, async () => {
        if (vm.status === 'running') throw new Error(`VM ${vm.vmid} already running`);
        await task.sleep(cluster.settings.taskMs);
        applyPending(ctxOf(req, vm));
        await powerOn(cluster, vm, task);
        finishResumeFromDisk(req.cluster, vm);
      }),
    ).upid;
  },

  'POST /nodes/{node}/qemu/{vmid}/status/stop': (req) => {
    const vm = vmOf(req);
    const { cluster } = req;
    cluster.checkLock(vm, req.params.skiplock);
    return startTask(req, { node: vm.node, type: 'qmstop', id: String(vm.vmid) }, (task) =>
      vm.flock.run(cluster.settings.flockTimeoutMs, async () => {
        await task.sleep(cluster.settings.taskMs);
        await powerOff(cluster, vm, task, req.params.timeout === undefined ? undefined : Number(req.params.timeout));
      }),
    ).upid;
  },

  'POST /nodes/{node}/qemu/{vmid}/status/shutdown': async (req) => {
    const vm = vmOf(req);
    const { cluster } = req;
    cluster.checkLock(vm, req.params.skiplock);
    const timeoutMs = int(req.params.timeout, 60) * 1000;
    const forceStop = req.params.forceStop === '1';
    const stopInstead = await shutdownPrecheck(cluster, vm, forceStop);
    return startTask(req, { node: vm.node, type: 'qmshutdown', id: String(vm.vmid) }, (task) =>
      vm.flock.run(cluster.settings.flockTimeoutMs + timeoutMs, async () => {
        if (vm.status === 'stopped') return;
        if (runsQemu(cluster, vm)) {
          const timeoutS = req.params.timeout === undefined ? undefined : Number(req.params.timeout);
          return shutdownQemu(cluster, vm, task, { timeoutS, forceStop, stopInstead });
        }
        if (vm.guestAcpi && cluster.settings.guestShutdownMs <= timeoutMs) {
          await task.sleep(cluster.settings.guestShutdownMs);
          stoppedByApi(cluster, vm, task);
          return;
        }
        await task.sleep(timeoutMs);
        if (!forceStop) throw new Error('VM quit/powerdown failed - got timeout');
        task.warn('VM still running - terminating now with SIGTERM');
        stoppedByApi(cluster, vm, task);
      }),
    ).upid;
  },

  'DELETE /nodes/{node}/qemu/{vmid}': (req) => {
    const vm = vmOf(req);
    const { cluster } = req;
    cluster.checkLock(vm, req.params.skiplock);
    checkHaBeforeDestroy(cluster, vm.vmid, req.params.purge === '1');
    if (vm.status === 'running') throw fail(`VM ${vm.vmid} is running - destroy failed`);
    if (vm.config.protection === '1') throw fail("can't remove VM " + vm.vmid + ' - protection mode enabled');
    return startTask(req, { node: vm.node, type: 'qmdestroy', id: String(vm.vmid) }, (task) =>
      vm.flock.run(cluster.settings.flockTimeoutMs, async () => {
        if (vm.status === 'running') throw new Error(`VM ${vm.vmid} is running - destroy failed`);
        await task.sleep(cluster.settings.taskMs);
        await assertBaseVolumesUnused(cluster, vm);
        destroyVolumes(req, vm, req.params['destroy-unreferenced-disks'] === '1');
        cluster.vms.delete(vm.vmid);
        await qemuRuntime(cluster)?.release(vm.vmid);
        // qemu-server's destroy calls remove_vm_access (and removes the firewall config, which the
        // simulator does not keep) on every destroy; `purge` only adds backup, replication and HA jobs.
        cluster.removeVmAccess(vm.vmid);
        task.log(`destroyed VM ${vm.vmid}`);
        if (req.params.purge === '1') {
          task.log(`purging VM ${vm.vmid} from related configurations..`);
          const note = purgeHaOnDestroy(cluster, vm.vmid);
          if (note) task.log(note);
        }
      }),
    ).upid;
  },
};

/**
 * qemu-server's live import: the VM (locked `import`) starts on the new, still empty volumes backed by
 * the sources, and the task streams the data in, then ends. On failure the VM is stopped and keeps the
 * lock, and the task fails "live-restore failed".
 */
async function liveImport(req: SimRequest, vm: SimVm, imports: LiveImport[], ctx: TaskContext): Promise<void> {
  const { cluster } = req;
  vm.config.lock = 'import';
  imports.forEach(() => ctx.countImport());
  try {
    // A bootable image coming in boots under real QEMU and streams while the guest runs; anything else is
    // only marked running while the copy is simulated.
    const restore = await startLiveRestore(
      cluster,
      vm,
      imports.map((job) => job.restore),
      ctx,
      () => {
        if (cluster.vms.get(vm.vmid) === vm) stop(vm);
      },
    );
    vm.status = 'running';
    vm.startedMs = Date.now();
    if (restore) await restore.stream();
    else {
      // The block jobs run side by side: one progress line per drive, each over the whole duration.
      await Promise.all(
        imports.map((job) =>
          simulateCopy(ctx, cluster.settings.importTaskMs, job.bytes, `restore-drive-${job.restore.key}`),
        ),
      );
      for (const { source, restore } of imports) {
        ctx.log(`${restore.key}: streaming from '${source}'`);
        await convertImage(restore.source.path, restore.target.path, restore.target.format, restore.source.format);
      }
    }
    ctx.log('restore-drive jobs finished successfully, removing all tracking block devices');
  } catch (err) {
    ctx.log(`An error occurred during live-restore: ${err instanceof Error ? err.message : String(err)}`);
    await qemuRuntime(cluster)
      ?.doVmStop(vm, { shutdown: false, force: true, timeoutS: 10 }, ctx)
      .catch(() => undefined);
    stop(vm);
    throw new Error('live-restore failed');
  }
  delete vm.config.lock;
}

/** Removes the VM's own volumes (disks, unusedN, its snapshots' saved states); with `unreferenced`, also its other images. */
function destroyVolumes(req: SimRequest, vm: SimVm, unreferenced: boolean): void {
  const { storages } = req.cluster;
  const drives = Object.entries({ ...vm.config, ...vm.pending }).filter(
    ([key]) => DISK_KEY.test(key) || UNUSED_KEY.test(key),
  );
  for (const value of [...drives.map(([, v]) => v), ...snapshotStateVolumes(vm)]) {
    const volid = volumeOf(value);
    if (!/^[^/][^:]*:/.test(volid)) continue;
    try {
      const volume = storages.resolve(volid, vm.node);
      if (volume.vmid === vm.vmid) storages.remove(volume);
    } catch {
      // not a managed volume (cdrom, absolute path): nothing to remove
    }
  }
  if (!unreferenced) return;
  for (const storage of storages.list()) {
    const base = storages.folder(storage, vm.node);
    if (storage.type === 'lvmthin') {
      for (const f of readdirSync(base))
        if (new RegExp(`^(snap_)?(vm|base)-${vm.vmid}-`).test(f)) rmSync(path.join(base, f), { force: true });
    } else rmSync(path.join(base, 'images', String(vm.vmid)), { recursive: true, force: true });
  }
}
