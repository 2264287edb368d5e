import { parsePropertyString } from '../../src/proxmox/property-string';
import type { LiveDevices } from './live-devices';
import { DISK_KEY, type WriteContext } from './vm-config';

/** What the hotplug of a running VM's pending changes works with (hotplug.ts and its helpers). */
export interface HotplugContext extends WriteContext {
  devices: LiveDevices;
  /** The host's physical address bits (get_max_mem). */
  hostBits: number | undefined;
}

/** qemu-server's `die "skip\n"`: not applicable to a running VM, left pending without an error. */
export const SKIP = Symbol('skip');

/** A PVE::Exception from raise_param_exc inside the hotplug, as it stringifies into the outer error. */
export class NestedParamError extends Error {
  constructor(readonly errors: Record<string, string>) {
    super(
      `400 Parameter verification failed.\n${Object.entries(errors)
        .map(([k, v]) => `${k}: ${v}\n`)
        .join('')}`,
    );
  }
}

/** vm_deviceunplug: nothing to do for a device QEMU lacks; a boot disk is never unplugged. */
export async function unplugDevice(ctx: HotplugContext, id: string, unplug: () => Promise<void>): Promise<void> {
  if (!(await ctx.devices.has(id))) return;
  if (bootDisks(ctx.vm.config).includes(id)) throw new Error(`can't unplug bootdisk '${id}'`);
  await unplug();
}

/** get_bootdisks: the drives of `boot: order=` (legacy: `bootdisk`). */
function bootDisks(config: Record<string, string>): string[] {
  const boot = config.boot === undefined ? undefined : parsePropertyString(config.boot, 'legacy');
  if (!boot || boot.legacy !== undefined) return config.bootdisk ? [config.bootdisk] : [];
  return (boot.order ?? '').split(/[,;\s]+/).filter((d) => DISK_KEY.test(d));
}
