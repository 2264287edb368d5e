import { parseNic } from '../../src/proxmox/nics';
import { SKIP, unplugDevice, type HotplugContext } from './hotplug-context';
import { numberDiffers, stringDiffers } from './hotplug-features';

/**
 * vmconfig_update_net (PVE/QemuServer.pm): a NIC's new value on a running VM.
 * - A new model, MAC, `queues` or `mtu`, or a NIC leaving or joining a bridge, needs the device unplugged
 *   and plugged again: only with the `network` hotplug feature, else it waits for a restart.
 * - A new bridge, VLAN tag, trunks or firewall flag moves the tap device (tap_unplug, tap_plug) whatever
 *   `hotplug` says, the MAC and the guest's device unchanged; for a new bridge or tag the link goes down
 *   and up again around it so the guest notices (DHCP renews). A new rate alone is applied to the tap.
 * - `link_down` is set on the device (set_link) when it changed, and after a bridge/tag move.
 * - A NIC new to the VM is plugged only with the `network` feature.
 */
export async function updateNet(ctx: HotplugContext, key: string, value: string, hotplug: boolean): Promise<void> {
  const { vm, devices } = ctx;
  const next = nicFields(value);
  const current = vm.config[key];
  if (current !== undefined) {
    const old = nicFields(current);
    const replug =
      stringDiffers(old.model, next.model) ||
      stringDiffers(old.macaddr, next.macaddr) ||
      numberDiffers(old.queues, next.queues) ||
      numberDiffers(old.mtu, next.mtu) ||
      !(next.bridge && old.bridge);
    if (!replug) {
      const moved = stringDiffers(old.bridge, next.bridge) || numberDiffers(old.tag, next.tag);
      if (moved || stringDiffers(old.trunks, next.trunks) || numberDiffers(old.firewall, next.firewall)) {
        if (moved) await devices.setLink(key, false);
        await devices.moveTap(key, value);
      }
      if (stringDiffers(old.link_down, next.link_down) || moved) await devices.setLink(key, next.link_down !== '1');
      return;
    }
    if (!hotplug) throw SKIP;
    await unplugDevice(ctx, key, () => devices.unplugNic(key));
  }
  if (!hotplug) throw SKIP;
  if (await devices.has(key)) return; // vm_deviceplug: already there
  await devices.plugNic(key, value, vm.config);
}

/** parse_net's fields (the model and MAC under their own names). */
function nicFields(value: string): Record<string, string | undefined> {
  const nic = parseNic(value);
  return { model: nic.model, macaddr: nic.macaddr, ...nic.options };
}
