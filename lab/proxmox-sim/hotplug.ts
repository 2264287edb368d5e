import { parsePropertyString } from '../../src/proxmox/property-string';
import type { SimVm } from './cluster';
import { isFastPlug, parseHotplugFeatures, type HotplugFeatures } from './hotplug-features';
import { hotplugCpus } from './hotplug-cpu';
import { hotplugMemory } from './hotplug-memory';
import { updateDisk } from './hotplug-disk';
import { updateNet } from './hotplug-net';
import { SKIP, unplugDevice, type HotplugContext } from './hotplug-context';
import { deleteOrDetachDrive } from './pending';
import { cloudInitHasChanges, recordCloudInit } from './cloud-init-pending';
import { cloudInitDrive, writeCloudInitDrive } from './qemu/cloud-init';
import { DISK_KEY } from './vm-config';

/** A die message as Perl has it (`die "…\n"` keeps it; the simulator's own errors get the newline). */
const dieMessage = (err: unknown) => {
  const text = err instanceof Error ? err.message : String(err);
  return text.endsWith('\n') ? text : `${text}\n`;
};

/**
 * qemu-server's vmconfig_hotplug_pending (PVE/QemuServer.pm): on a running VM, which of the options just
 * written (`selection`; the others stay pending) it applies now and how, option by option, as the VM's
 * `hotplug` setting allows. What it cannot apply stays pending ("skip"); what fails stays pending too,
 * with `hotplug problem - <why>` in `errors`, which the API answers with (400) or the task fails with.
 */
export async function hotplugPending(
  ctx: HotplugContext,
  selection: Set<string>,
  errors: Record<string, string>,
): Promise<void> {
  const { vm } = ctx;
  for (const key of Object.keys(vm.pending)) {
    if (!isFastPlug(key)) continue;
    vm.config[key] = vm.pending[key]!; // options that do not touch the running VM, whatever was selected
    delete vm.pending[key];
  }
  const features = parseHotplugFeatures(vm.config.hotplug);
  const attempt = async (key: string, work: () => Promise<void>): Promise<boolean> => {
    try {
      await work();
      return true;
    } catch (err) {
      if (err !== SKIP) errors[key] = `hotplug problem - ${dieMessage(err)}`;
      return false;
    }
  };
  for (const [key, force] of [...vm.pendingDelete]) {
    if (!selection.has(key)) continue;
    if (!(await attempt(key, () => hotplugDelete(ctx, key, force, features)))) continue;
    delete vm.config[key];
    vm.pendingDelete.delete(key);
  }
  let cloudInitKey: string | undefined;
  for (const key of Object.keys(vm.pending)) {
    if (!selection.has(key)) continue;
    if (DISK_KEY.test(key) && isCloudInit(vm.pending[key]!)) {
      cloudInitKey = key; // applied once the other changes are in, as the drive is made from them
      continue;
    }
    let value = vm.pending[key]!;
    const applied = await attempt(key, async () => {
      value = await hotplugValue(ctx, key, value, features);
    });
    if (!applied) continue;
    vm.config[key] = value;
    delete vm.pending[key];
  }
  if (cloudInitKey !== undefined) {
    const key = cloudInitKey;
    const value = vm.pending[key]!;
    const applied = await attempt(key, () => updateDisk(ctx, key, value, features.disk));
    if (applied) {
      vm.config[key] = value;
      delete vm.pending[key];
    }
  }
  if (features.cloudinit && cloudInitHasChanges(vm)) await updateCloudInitDrive(ctx);
}

/**
 * vmconfig_update_cloudinit_drive (with the `cloudinit` feature): the NoCloud drive made again from the
 * current settings and its medium changed in the running VM.
 */
async function updateCloudInitDrive(ctx: HotplugContext): Promise<void> {
  const { vm, cluster } = ctx;
  const drive = cloudInitDrive(vm.vmid, vm.config);
  if (!drive) return;
  const volume = cluster.storages.resolve(drive.volid, vm.node);
  await writeCloudInitDrive(vm.vmid, vm.config, { path: volume.file, format: volume.format as 'raw' });
  recordCloudInit(vm);
  await ctx.devices.changeMedium(drive.key, vm.config[drive.key]!);
}

const isCloudInit = (value: string) => /vm-\d+-cloudinit/.test(parsePropertyString(value, 'file').file ?? '');

/** USB hotplug needs a machine of 7.1 or later and a Linux or Windows 8+ guest. */
function usbHotplug(vm: SimVm, features: HotplugFeatures): boolean {
  if (!features.usb) return false;
  const version = /-(\d+)\.(\d+)/.exec(parsePropertyString(vm.config.machine ?? '', 'type').type ?? '');
  if (version && (Number(version[1]) < 7 || (Number(version[1]) === 7 && Number(version[2]) < 1))) return false;
  const ostype = vm.config.ostype;
  const windows = /^win(\d+)$/.exec(ostype ?? '')?.[1];
  return ostype === 'l26' || (windows !== undefined && Number(windows) > 7);
}

/** One pending deletion on the running VM. */
async function hotplugDelete(
  ctx: HotplugContext,
  key: string,
  force: boolean,
  features: HotplugFeatures,
): Promise<void> {
  const { vm, devices } = ctx;
  if (key === 'hotplug') {
    if (/(cpu|memory)/.test(vm.config.hotplug ?? '')) throw SKIP;
  } else if (key === 'tablet') {
    if (!features.usb) throw SKIP;
  } else if (/^usb\d+$/.test(key)) {
    if (!usbHotplug(vm, features)) throw SKIP;
  } else if (key === 'vcpus') {
    if (!features.cpu) throw SKIP;
    await hotplugCpus(ctx, undefined);
  } else if (key === 'balloon') {
    if (vm.config.balloon !== undefined && Number(vm.config.balloon) === 0) throw SKIP;
    await devices.balloon(currentMemory(vm) * 1024 * 1024); // back to the full memory
  } else if (isFastPlug(key) || key === 'cpuunits' || key === 'cpulimit') {
    // nothing in QEMU (cpuunits/cpulimit: the VM's cgroup)
  } else if (/^net\d+$/.test(key)) {
    if (!features.network) throw SKIP;
    await unplugDevice(ctx, key, () => devices.unplugNic(key));
  } else if (DISK_KEY.test(key)) {
    if (!features.disk || /^(efidisk|ide|sata|tpmstate)\d+$/.test(key)) throw SKIP;
    await unplugDevice(ctx, key, () => devices.unplugDisk(key, vm.config));
    deleteOrDetachDrive(ctx, key, force);
  } else if (key === 'memory') {
    if (!features.memory) throw SKIP;
    await hotplugMemory(ctx, undefined);
  } else throw SKIP;
}

const currentMemory = (vm: SimVm) => Number(parsePropertyString(vm.config.memory ?? '512', 'current').current);

/** One pending value on the running VM; resolves with the value to store (memory: what was plugged). */
async function hotplugValue(
  ctx: HotplugContext,
  key: string,
  value: string,
  features: HotplugFeatures,
): Promise<string> {
  const { vm } = ctx;
  if (key === 'hotplug') {
    if (/memory/.test(value) || /memory/.test(vm.config.hotplug ?? '')) throw SKIP;
    if (/cpu/.test(value) || /cpu/.test(vm.config.hotplug ?? '')) throw SKIP;
  } else if (key === 'tablet') {
    if (!features.usb) throw SKIP;
  } else if (/^usb\d+$/.test(key)) {
    if (!usbHotplug(vm, features)) throw SKIP;
  } else if (key === 'vcpus') {
    if (!features.cpu) throw SKIP;
    await hotplugCpus(ctx, value);
  } else if (key === 'balloon') {
    const enabled = (v: string | undefined) => v === undefined || Number(v) !== 0;
    if (enabled(vm.config.balloon) !== enabled(value)) throw SKIP;
    if (vm.config.shares !== undefined && Number(vm.config.shares) === 0)
      await ctx.devices.balloon((Number(value) || currentMemory(vm)) * 1024 * 1024);
  } else if (/^net\d+$/.test(key)) {
    await updateNet(ctx, key, value, features.network);
  } else if (DISK_KEY.test(key)) {
    if (key === 'efidisk0' || key === 'tpmstate0') throw SKIP;
    await updateDisk(ctx, key, value, features.disk);
  } else if (key === 'memory') {
    if (!features.memory) throw SKIP;
    return hotplugMemory(ctx, value);
  } else if (key === 'cpuunits' || key === 'cpulimit') {
    // the VM's cgroup
  } else if (key === 'agent') {
    updateAgent(vm.config.agent, value);
  } else throw SKIP;
  return value;
}

/** vmconfig_update_agent: only `fstrim_cloned_disks` changes on a running VM. */
function updateAgent(old: string | undefined, value: string): void {
  if (!old) throw SKIP;
  const parse = (v: string) => {
    const agent = Object.fromEntries(
      Object.entries(parsePropertyString(v, 'enabled')).map(([k, x]) => [
        k,
        k === 'type' ? x : /^(1|on|yes|true)$/i.test(x) ? '1' : '0',
      ]),
    );
    return agent.enabled === '1' ? agent : {};
  };
  const before = parse(old);
  const after = parse(value);
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (key === 'fstrim_cloned_disks') continue;
    if (before[key] !== after[key]) throw SKIP;
  }
}
