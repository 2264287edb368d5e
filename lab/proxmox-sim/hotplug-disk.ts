import { parsePropertyString } from '../../src/proxmox/property-string';
import { SKIP, unplugDevice, type HotplugContext } from './hotplug-context';
import { numberDiffers, stringDiffers } from './hotplug-features';
import { mediaOf, registerUnusedDrive } from './pending';
import { isCdromDrive } from './vm-drives';

/**
 * vmconfig_update_disk (PVE/QemuServer.pm): a drive's new value on a running VM.
 * - The media type never changes live ("unable to change media type").
 * - A CD-ROM gets its new medium at once.
 * - A disk that names another volume is unplugged and kept as `unusedN`, and the new one plugged: only
 *   with the `disk` hotplug feature and never on IDE or SATA, else it waits for a restart.
 * - The same volume with new options: aio, discard, iothread, queues, product, cache, ssd, vendor or ro
 *   wait for a restart; the I/O limits (mbps*, iops*, their bursts) are applied at once (block_set_io_throttle),
 *   and anything else (`size`, `backup`, `replicate`, `serial`…) is only written down.
 * - A drive new to the VM is plugged with the `disk` feature (not IDE/SATA).
 */
const RESTART_ONLY = ['aio', 'discard', 'iothread', 'queues', 'product', 'cache', 'ssd', 'vendor', 'ro'];
/** The drive's I/O limits, as block_set_io_throttle takes them. */
export const THROTTLE_OPTIONS = ['mbps', 'mbps_rd', 'mbps_wr', 'iops', 'iops_rd', 'iops_wr'].flatMap((o) => [
  o,
  `${o}_max`,
]);
const THROTTLE_LENGTHS = ['bps', 'bps_rd', 'bps_wr', 'iops', 'iops_rd', 'iops_wr'].map((o) => `${o}_max_length`);

export async function updateDisk(ctx: HotplugContext, key: string, value: string, hotplug: boolean): Promise<void> {
  const { vm, devices } = ctx;
  const drive = parsePropertyString(value, 'file');
  const current = vm.config[key];
  if (current !== undefined) {
    const old = parsePropertyString(current, 'file');
    if (mediaOf(value) !== mediaOf(current)) throw new Error('unable to change media type\n');
    if (isCdromDrive(current)) {
      await devices.changeMedium(key, value);
      if (drive.file === 'none' && /vm-\d+-cloudinit/.test(old.file ?? '')) registerUnusedDrive(ctx, current);
      return;
    }
    if (drive.file === old.file) {
      if (RESTART_ONLY.some((option) => stringDiffers(drive[option], old[option]))) throw SKIP;
      if ([...THROTTLE_OPTIONS, ...THROTTLE_LENGTHS].some((option) => numberDiffers(drive[option], old[option])))
        await devices.ioThrottle(key, drive);
      return;
    }
    if (!hotplug) throw SKIP;
    await unplugDevice(ctx, key, () => devices.unplugDisk(key, vm.config));
    registerUnusedDrive(ctx, current);
  }
  if (!hotplug || /^(ide|sata)\d+$/.test(key)) throw SKIP;
  if (await devices.has(key)) return; // vm_deviceplug: already there
  await devices.plugDisk(key, value, vm.config);
}
