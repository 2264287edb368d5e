/**
 * What a running VM takes at once, as qemu-server decides it: the VM's `hotplug` option and the memory
 * rules of memory hotplug. Read in proxmox/qemu-server (9.2): PVE/QemuServer.pm parse_hotplug_features,
 * PVE/QemuServer/Memory.pm config, foreach_dimm and qemu_memory_hotplug.
 */

export type HotplugFeature = 'network' | 'disk' | 'cpu' | 'memory' | 'usb' | 'cloudinit';

/** qemu-server's default of `hotplug` (also what `1` means). */
export const DEFAULT_HOTPLUG = 'network,disk,usb';

const FEATURES: readonly HotplugFeature[] = ['network', 'disk', 'cpu', 'memory', 'usb', 'cloudinit'];

/**
 * The features a `hotplug` value turns on (parse_hotplug_features): absent or `1` is the default
 * `network,disk,usb`, `0` is none, otherwise a list. qemu-server refuses unknown features on write, so
 * a config never holds one; they are ignored here.
 */
export function hotplugFeatures(value: string | undefined): ReadonlySet<HotplugFeature> {
  if (value === '0') return new Set();
  const list = value === undefined || value === '1' ? DEFAULT_HOTPLUG : value;
  return new Set(list.split(/[,;\s]+/).filter((f): f is HotplugFeature => (FEATURES as readonly string[]).includes(f)));
}

/** Memory a VM with memory hotplug boots with; DIMMs come on top (Memory.pm $STATICMEM). */
export const STATIC_MEMORY_MIB = 1024;

/**
 * The memory sizes a VM with memory hotplug can have (Memory.pm foreach_dimm): 1024 MiB, then 32 DIMMs
 * of 512 MiB, 32 of 1 GiB, … doubling 8 times. Any other size cannot start ("memory size must be
 * aligned"), and a hot-add stops at the first size at or above the one asked for.
 */
export function dimmGridSizes(): number[] {
  const sizes = [STATIC_MEMORY_MIB];
  let size = STATIC_MEMORY_MIB;
  for (let step = 0, dimm = 512; step < 8; step++, dimm *= 2) {
    for (let i = 0; i < 32; i++) sizes.push((size += dimm));
  }
  return sizes;
}

const GRID = dimmGridSizes();

/** Whether memory hotplug can have this size (see dimmGridSizes). */
export function onDimmGrid(memoryMiB: number): boolean {
  return GRID.includes(memoryMiB);
}

/** The grid sizes around a size that is not on it, for a message a person can act on. */
export function nearestDimmSizes(memoryMiB: number): { below?: number; above?: number } {
  const above = GRID.find((s) => s >= memoryMiB);
  const below = [...GRID].reverse().find((s) => s <= memoryMiB);
  return { ...(below !== undefined ? { below } : {}), ...(above !== undefined ? { above } : {}) };
}
