import { randomUUID } from 'node:crypto';
import { parsePropertyString } from '../../src/proxmox/property-string';
import { fail, paramError } from './api-error';
import type { Cluster, SimVm } from './cluster';
import { hotplugPending } from './hotplug';
import type { LiveDevices } from './live-devices';
import {
  addToPendingDelete,
  cleanupPending,
  deallocateDrive,
  dropReusedUnused,
  hasPending,
  registerUnusedDrive,
  removeFromPendingDelete,
  applyPending,
} from './pending';
import { currentMemoryMiB } from './qemu/memory';
import { loadSubset } from './schema/subset';
import { schemaFor } from './schema/validate';
import { DISK_KEY, normaliseNic, prepareDisk, printDevice, UNUSED_KEY, volumeOf, type WriteContext } from './vm-config';
import { isCdromDrive } from './vm-drives';

/**
 * qemu-server's update_vm_api (PVE/API2/Qemu.pm), behind `PUT` (in the request) and `POST` (a `qmconfig`
 * task) `…/config` and `PUT …/unlink`: every change goes to the `[PENDING]` section first, then a
 * stopped VM gets all of them applied (vmconfig_apply_pending) and a running one those of this request
 * that it can take live (vmconfig_hotplug_pending, by its `hotplug` setting); the rest stays pending
 * until the VM restarts. `revert` drops a pending change, `delete` (with `force`: free the disk) marks a
 * deletion. Whatever fails stays pending and the request fails with the reasons per option.
 */
export interface ConfigUpdate {
  set: Record<string, string>;
  delete: string[];
  revert: string[];
  force: boolean;
  skiplock: boolean;
  /** The task's first line: `update VM <vmid>: -key value …`. */
  summary: string;
}

/** Parameters update_vm_api takes out before it looks at the options. */
const CONTROL = ['node', 'vmid', 'digest', 'background_delay', 'skip_cloud_init', 'import-working-storage'];
const WORKER_CONTROL = ['skiplock', 'delete', 'revert', 'force'];

const splitList = (v: string | undefined) => (v ? v.split(/[,;\s]+/).filter(Boolean) : []);

/** The checks before the config lock: conflicting or unknown keys, nothing to do, the NICs' MACs. */
export function parseConfigUpdate(cluster: Cluster, vmid: number, params: Record<string, string>, user: string) {
  const rest = Object.fromEntries(Object.entries(params).filter(([k]) => !CONTROL.includes(k)));
  const summary = Object.keys(rest)
    .sort()
    .map((k) => `-${k} ${k === 'cipassword' ? '<hidden>' : rest[k]}`)
    .join(' ');
  if (rest.skiplock === '1' && user !== 'root@pam') throw paramError({ skiplock: 'Only root may use this option.' });
  const set = Object.fromEntries(Object.entries(rest).filter(([k]) => !WORKER_CONTROL.includes(k)));
  if (!rest.delete && !rest.revert && Object.keys(set).length === 0) throw fail('no options specified');
  if (set.cdrom !== undefined) {
    set.ide2 = /media=/.test(set.cdrom) ? set.cdrom : `${set.cdrom},media=cdrom`;
    delete set.cdrom;
  }
  const known = loadSubset(cluster.flavour).endpoints['/nodes/{node}/qemu/{vmid}/config']!.PUT!.parameters!.properties!;
  const exists = (key: string) =>
    schemaFor(known, key) !== undefined && !CONTROL.includes(key) && !WORKER_CONTROL.includes(key);
  const revert = splitList(rest.revert);
  for (const key of revert) {
    if (!exists(key)) throw paramError({ revert: `unknown option '${key}'` });
    if (set[key] !== undefined)
      throw paramError({ delete: `you can't use '-${key}' and -revert ${key}' at the same time` });
  }
  const del: string[] = [];
  for (let key of splitList(rest.delete)) {
    if (key === 'cdrom') key = 'ide2';
    if (set[key] !== undefined)
      throw paramError({ delete: `you can't use '-${key}' and -delete ${key}' at the same time` });
    if (revert.includes(key))
      throw paramError({ revert: `you can't use '-delete ${key}' and -revert ${key}' at the same time` });
    if (!exists(key)) throw paramError({ delete: `unknown option '${key}'` });
    del.push(key);
  }
  for (const key of Object.keys(set)) {
    if (/^net\d+$/.test(key)) set[key] = printDevice(cluster, key, normaliseNic(cluster, set[key]!));
    else if (key === 'vmgenid' && set[key] === '1') set[key] = randomUUID();
  }
  return {
    set,
    delete: del,
    revert,
    force: rest.force === '1',
    skiplock: rest.skiplock === '1',
    summary: `update VM ${vmid}: ${summary}`,
  };
}

/** The checks under the config lock that come before the worker: reverts resolved, the balloon's bound. */
export function resolveReverts(vm: SimVm, update: ConfigUpdate): void {
  for (const key of update.revert) {
    if (vm.config[key] !== undefined) update.set[key] = vm.config[key];
    else if (vm.pending[key] !== undefined) update.delete.push(key);
  }
  if (update.set.memory !== undefined || update.set.balloon !== undefined) {
    const memory = currentMemoryMiB(update.set.memory ?? vm.pending.memory ?? vm.config.memory);
    const balloon =
      update.set.balloon !== undefined
        ? Number(update.set.balloon)
        : Number(vm.pending.balloon) || Number(vm.config.balloon);
    if (balloon && balloon > memory) throw fail('balloon value too large (must be smaller than assigned memory)');
  }
}

/** The worker: the request's changes into `[PENDING]`, then applied or hotplugged; throws the errors per key. */
export async function runConfigUpdate(
  ctx: WriteContext,
  update: ConfigUpdate,
  live: () => { devices: LiveDevices; hostBits: number | undefined },
): Promise<void> {
  const { vm } = ctx;
  ctx.task?.log(update.summary);
  const modified = new Set<string>();
  writeDeletions(ctx, update, modified);
  await writeValues(ctx, update, modified);
  cleanupPending(vm);
  dropReusedUnused(vm);
  if (!hasPending(vm)) return;
  let errors: Record<string, string> = {};
  if (vm.status === 'running') await hotplugPending({ ...ctx, ...live() }, modified, errors);
  else errors = applyPending(ctx);
  dropReusedUnused(vm);
  if (Object.keys(errors).length > 0) throw paramError(errors);
}

const bootOrderOf = (vm: SimVm) => {
  const boot = vm.config.boot === undefined ? {} : parsePropertyString(vm.config.boot, 'legacy');
  return splitList(boot.order);
};
const printBootOrder = (devices: string[]) => (devices.length > 0 ? `order=${devices.join(';')}` : '');

const checkProtection = (vm: SimVm, message: string) => {
  if (vm.config.protection === '1') throw new Error(`${message} - protection mode enabled`);
};

function writeDeletions(ctx: WriteContext, update: ConfigUpdate, modified: Set<string>): void {
  const { vm } = ctx;
  let bootOrder = bootOrderOf(vm);
  const bootOrderDeleted = update.delete.includes('bootorder');
  for (const key of update.delete) {
    modified.add(key);
    const value = vm.config[key] ?? vm.pending[key];
    if (value === undefined) {
      ctx.task?.log(`cannot delete '${key}' - not set in current configuration!`);
      modified.delete(key);
      continue;
    }
    const wasPending = vm.pending[key] !== undefined;
    delete vm.pending[key];
    if (!bootOrderDeleted && bootOrder.includes(key)) {
      bootOrder = bootOrder.filter((d) => d !== key);
      vm.pending.boot = printBootOrder(bootOrder);
      modified.add('boot');
    }
    if (UNUSED_KEY.test(key)) {
      checkProtection(vm, `can't remove unused disk '${volumeOf(value)}'`);
      if (deallocateDrive(ctx, key, value, false)) delete vm.config[key];
    } else if (key === 'vmstate') {
      checkProtection(vm, `can't remove vmstate '${value}'`);
      if (deallocateDrive(ctx, key, value, true)) delete vm.config[key];
    } else if (DISK_KEY.test(key)) {
      checkProtection(vm, `can't remove drive '${key}'`);
      if (wasPending) registerUnusedDrive(ctx, value);
      addToPendingDelete(vm, key, update.force);
    } else if (key === 'tags') delete vm.config[key];
    else addToPendingDelete(vm, key, update.force);
  }
}

async function writeValues(ctx: WriteContext, update: ConfigUpdate, modified: Set<string>): Promise<void> {
  const { vm, cluster } = ctx;
  const bootOrder = bootOrderOf(vm);
  for (const [key, value] of Object.entries(update.set)) {
    modified.add(key);
    if (vm.pending[key] !== undefined && vm.pending[key] === value) continue;
    if (DISK_KEY.test(key)) {
      if (vm.pending[key] !== undefined) registerUnusedDrive(ctx, vm.pending[key]);
      vm.pending[key] = printDevice(cluster, key, await prepareDisk(ctx, key, printDevice(cluster, key, value)));
      if (bootOrder.length > 0 && isCdromDrive(vm.pending[key]) && !bootOrder.includes(key)) {
        bootOrder.push(key);
        vm.pending.boot = printBootOrder(bootOrder);
        modified.add('boot');
      }
    } else if (key === 'cipassword') vm.config.cipassword = value;
    else if (key === 'boot') writeBootOrder(vm, update, value);
    else vm.pending[key] = value;
    removeFromPendingDelete(vm, key);
  }
}

function writeBootOrder(vm: SimVm, update: ConfigUpdate, value: string): void {
  vm.pending.boot = value;
  const order = parsePropertyString(value, 'legacy').order;
  if (order === undefined) return;
  const devices = splitList(order);
  for (const device of devices) {
    const exists = vm.config[device] ?? vm.pending[device] ?? update.set[device];
    if (!exists || update.delete.includes(device))
      throw new Error(`invalid bootorder: device '${device}' does not exist'`);
  }
  vm.pending.boot = printBootOrder(devices);
  if (vm.config.bootdisk) addToPendingDelete(vm, 'bootdisk', false);
}
