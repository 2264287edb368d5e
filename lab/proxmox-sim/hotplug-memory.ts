import { NestedParamError, type HotplugContext } from './hotplug-context';
import { currentMemoryMiB, planMemoryHotplug } from './qemu/memory';

/**
 * qemu_memory_hotplug (PVE/QemuServer/Memory.pm) on a running VM with the `memory` hotplug feature:
 * DIMMs plugged one by one (the memory written down after each, so it ends on a DIMM boundary above
 * the wanted value), or the newest unplugged one by one ("try to unplug memory dimm dimmN", device_del,
 * 3 s, again up to 6 times while the guest keeps it). Resolves with the memory the VM now has, which
 * becomes the config's value.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const UNPLUG_WAIT_MS = 3000;
const UNPLUG_RETRIES = 5;

export async function hotplugMemory(ctx: HotplugContext, wanted: string | undefined): Promise<string> {
  const { vm, devices, cluster } = ctx;
  const present = (await devices.dimms()).map(({ name, sizeMiB }) => ({ name, sizeMiB }));
  const change = planMemoryHotplug(vm.config, wanted, ctx.hostBits, cluster.flavour, present);
  const record = (mib: number) => {
    vm.config.memory = String(mib);
  };
  if (change.kind === 'none') return wanted ?? vm.config.memory ?? '512';
  if (change.kind === 'error') throw new Error(change.message);
  if (change.kind === 'plug') {
    for (const dimm of change.dimms) {
      await devices.addDimm(dimm);
      record(dimm.totalMiB);
    }
    return vm.config.memory!;
  }
  let total = currentMemoryMiB(vm.config.memory);
  for (const name of change.names) {
    ctx.task?.log(`try to unplug memory dimm ${name}`);
    for (let retry = 0; ; retry++) {
      await devices.removeDimm(name).catch(() => undefined);
      await sleep(UNPLUG_WAIT_MS);
      if (!(await devices.dimms()).some((d) => d.name === name)) break;
      if (retry > UNPLUG_RETRIES) throw new NestedParamError({ [name]: 'error unplug memory module' });
    }
    total -= present.find((d) => d.name === name)!.sizeMiB;
    record(total);
    await devices.removeMemoryBackend(name).catch(() => undefined);
  }
  return vm.config.memory!;
}
