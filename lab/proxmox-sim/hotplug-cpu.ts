import { NestedParamError, type HotplugContext } from './hotplug-context';

/**
 * qemu_cpu_hotplug (PVE/QemuServer.pm): `vcpus` on a running VM with the `cpu` hotplug feature. The
 * vCPUs beyond the running count are added one by one (device_add `cpuN`), or the highest removed one by
 * one (device_del), each time waiting for query-cpus-fast to show it and writing `vcpus` down after each,
 * so a failure halfway leaves the config at what runs. Unset `vcpus` means all of sockets × cores.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How long qemu-server waits for a vCPU to appear (10 retries) or go (5), one second apart. */
const PLUG_RETRIES = 10;
const UNPLUG_RETRIES = 5;

export function maxCpus(config: Record<string, string>): number {
  const sockets = Number(config.sockets ?? config.smp ?? 1) || 1;
  return sockets * (Number(config.cores ?? 1) || 1);
}

export async function hotplugCpus(ctx: HotplugContext, wanted: string | undefined): Promise<void> {
  const { vm, devices } = ctx;
  const maxcpus = maxCpus(vm.config);
  const vcpus = Number(wanted) || maxcpus;
  if (vcpus > maxcpus) throw new Error("you can't add more vcpus than maxcpus\n");
  const current = Number(vm.config.vcpus) || maxcpus;
  const waitFor = async (count: number, retries: number, failure: string) => {
    for (let retry = 0; ; retry++) {
      if ((await devices.cpuCount()) === count) return;
      if (retry > retries) throw new NestedParamError({ vcpus: failure });
      await sleep(1000);
    }
  };
  if (vcpus < current) {
    for (let i = current; i > vcpus; i--) {
      await devices.removeCpu(i);
      await waitFor(i - 1, UNPLUG_RETRIES, `error unplugging cpu${i}`);
      vm.config.vcpus = String(i - 1);
    }
    return;
  }
  if ((await devices.cpuCount()) !== current) throw new Error('vcpus in running vm does not match its configuration\n');
  for (let i = current + 1; i <= vcpus; i++) {
    await devices.addCpu(i, vm.config);
    await waitFor(i, PLUG_RETRIES, `error hotplugging cpu${i}`);
    vm.config.vcpus = String(i);
  }
}
