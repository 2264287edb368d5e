import { parsePropertyString } from '../../src/proxmox/property-string';
import type { SimVm } from './cluster';
import { driveVolume, isCdromDrive } from './vm-drives';
import { DISK_KEY, UNUSED_KEY, volumeOf, type WriteContext } from './vm-config';

/**
 * A VM config's `[PENDING]` section as pve-guest-common's AbstractConfig and qemu-server keep it:
 * values waiting for a restart, deletions (`delete: a,!b`, `!` = forced), their cleanup, and
 * vmconfig_apply_pending, which makes them current when the VM is not running (a write to a stopped
 * VM, or vm_start).
 */

/** add_to_pending_delete; the section lists the keys sorted (print_pending_delete). */
export function addToPendingDelete(vm: SimVm, key: string, force: boolean): void {
  const entries = [...vm.pendingDelete].filter(([k]) => k !== key);
  entries.push([key, force]);
  vm.pendingDelete = new Map(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export function removeFromPendingDelete(vm: SimVm, key: string): void {
  vm.pendingDelete.delete(key);
}

/** cleanup_pending: a pending value equal to the current one goes, and so does a deletion of an unset key. */
export function cleanupPending(vm: SimVm): boolean {
  let changes = false;
  for (const [key, value] of Object.entries(vm.pending)) {
    if (vm.config[key] !== undefined && vm.config[key] === value) {
      delete vm.pending[key];
      changes = true;
    }
  }
  for (const key of [...vm.pendingDelete.keys()]) {
    if (vm.config[key] === undefined) {
      vm.pendingDelete.delete(key);
      changes = true;
    }
  }
  return changes;
}

/** Whether anything is pending (values or deletions): `keys %{$conf->{pending}}`. */
export const hasPending = (vm: SimVm) => Object.keys(vm.pending).length > 0 || vm.pendingDelete.size > 0;

const isCloudInitDrive = (value: string) => /(^|[:/])vm-\d+-cloudinit(\.\w+)?$/.test(volumeOf(value));

/** vm_is_volid_owner: the volume's name carries this VMID. */
function ownsVolume(ctx: WriteContext, volid: string): boolean {
  return driveVolume(ctx.cluster, ctx.vm.node, volid)?.vmid === ctx.vm.vmid;
}

/**
 * vmconfig_register_unused_drive: a cloud-init drive is freed, a CD-ROM forgotten, any other volume this
 * VM owns kept as `unusedN`.
 */
export function registerUnusedDrive(ctx: WriteContext, value: string): void {
  const volid = volumeOf(value);
  if (isCloudInitDrive(value)) {
    const volume = driveVolume(ctx.cluster, ctx.vm.node, volid);
    if (volume && ctx.cluster.storages.exists(volume)) ctx.cluster.storages.remove(volume);
    return;
  }
  if (isCdromDrive(value) || !ownsVolume(ctx, volid)) return;
  addUnusedVolume(ctx.vm, volid);
}

/** add_unused_volume: the lowest free `unusedN` of 256, unless one already names the volume. */
function addUnusedVolume(vm: SimVm, volid: string): void {
  let free: string | undefined;
  for (let n = 255; n >= 0; n--) {
    const key = `unused${n}`;
    if (vm.config[key] === volid) return;
    if (vm.config[key] === undefined) free = key;
  }
  if (!free) throw new Error('Too many unused volumes - please delete them first.');
  vm.config[free] = volid;
}

/**
 * write_vm_config's rule, at each write: an `unusedN` whose volume a drive uses again (current or
 * pending) is dropped.
 */
export function dropReusedUnused(vm: SimVm): void {
  const used = new Set(
    [...Object.entries(vm.config), ...Object.entries(vm.pending)]
      .filter(([k]) => DISK_KEY.test(k))
      .map(([, v]) => volumeOf(v)),
  );
  for (const [key, value] of Object.entries(vm.config))
    if (UNUSED_KEY.test(key) && used.has(value)) delete vm.config[key];
}

/** is_volume_in_use (for a forced delete): another key or a snapshot still names the volume. */
function volumeInUse(vm: SimVm, key: string, volid: string): boolean {
  const names = (config: Record<string, string>, skip?: string) =>
    Object.entries(config).some(([k, v]) => k !== skip && DISK_KEY.test(k) && volumeOf(v) === volid);
  return names(vm.config, key) || [...vm.snapshots.values()].some((snapshot) => names(snapshot));
}

/**
 * try_deallocate_drive with `force` (an `unusedN` always): the VM's own volume is freed unless still in
 * use; a volume of another VM is only dropped from the config. Returns false for a CD-ROM (nothing done).
 */
export function deallocateDrive(ctx: WriteContext, key: string, value: string, force: boolean): boolean {
  if (!(force || /^unused\d+$/.test(key)) || isCdromDrive(value)) return false;
  const volid = volumeOf(value);
  if (!ownsVolume(ctx, volid)) return true;
  if (volumeInUse(ctx.vm, key, volid))
    throw new Error(`unable to delete '${volid}' - volume is still in use (snapshot?)`);
  const volume = driveVolume(ctx.cluster, ctx.vm.node, volid);
  if (volume && ctx.cluster.storages.exists(volume)) ctx.cluster.storages.remove(volume);
  return true;
}

/** vmconfig_delete_or_detach_drive: forced → freed, otherwise kept as `unusedN`. */
export function deleteOrDetachDrive(ctx: WriteContext, key: string, force: boolean): void {
  const value = ctx.vm.config[key]!;
  if (force) deallocateDrive(ctx, key, value, true);
  else registerUnusedDrive(ctx, value);
}

/**
 * vmconfig_apply_pending: deletions first (a drive detached or, forced, freed), then every pending
 * value becomes current (a replaced drive kept as `unusedN`). A failure leaves that change pending and
 * is logged ("unable to apply pending change <key> : <why>") and returned.
 */
export function applyPending(ctx: WriteContext): Record<string, string> {
  const { vm } = ctx;
  const errors: Record<string, string> = {};
  const failed = (key: string, err: unknown) => {
    const message = `unable to apply pending change ${key} : ${err instanceof Error ? err.message : String(err)}`;
    errors[key] = message;
    ctx.task?.log(message);
  };
  for (const [key, force] of [...vm.pendingDelete]) {
    try {
      if (/^unused\d+$/.test(key)) throw new Error('internal error');
      if (vm.config[key] !== undefined && DISK_KEY.test(key)) deleteOrDetachDrive(ctx, key, force);
    } catch (err) {
      failed(key, err);
      continue;
    }
    vm.pendingDelete.delete(key);
    delete vm.config[key];
  }
  cleanupPending(vm);
  for (const [key, value] of Object.entries(vm.pending)) {
    try {
      const old = vm.config[key];
      // A cloud-init drive given again is made afresh at start (PVE frees and reallocates it).
      if (old !== undefined && DISK_KEY.test(key) && !(isCloudInitDrive(old) && volumeOf(old) === volumeOf(value)))
        registerUnusedDrive(ctx, old);
    } catch (err) {
      failed(key, err);
      continue;
    }
    vm.config[key] = value;
    delete vm.pending[key];
  }
  dropReusedUnused(vm);
  return errors;
}

/** A drive's media as vmconfig_update_disk compares them (`disk` unless it says otherwise). */
export const mediaOf = (value: string) => parsePropertyString(value, 'file').media ?? 'disk';
