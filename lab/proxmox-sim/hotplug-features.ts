/**
 * The VM's `hotplug` option and the options qemu-server changes on a running VM without asking QEMU
 * (PVE/QemuServer.pm: parse_hotplug_features, $fast_plug_option, $confdesc_cloudinit).
 */
export interface HotplugFeatures {
  network: boolean;
  disk: boolean;
  cpu: boolean;
  memory: boolean;
  usb: boolean;
  cloudinit: boolean;
}

/** The schema's default, also what `1` stands for. */
export const DEFAULT_HOTPLUG = 'network,disk,usb';
const FEATURES = ['network', 'disk', 'cpu', 'memory', 'usb', 'cloudinit'] as const;

/** parse_hotplug_features: `0` none, `1` (or unset) the default, else the listed features. */
export function parseHotplugFeatures(value: string | undefined): HotplugFeatures {
  const on = Object.fromEntries(FEATURES.map((f) => [f, false])) as unknown as HotplugFeatures;
  if (value === '0') return on;
  const list = value === undefined || value === '1' ? DEFAULT_HOTPLUG : value;
  for (const feature of list.split(/[,;\s]+/).filter(Boolean)) {
    if (!(FEATURES as readonly string[]).includes(feature)) throw new Error(`invalid hotplug feature '${feature}'`);
    on[feature as (typeof FEATURES)[number]] = true;
  }
  return on;
}

/** pve-hotplug-features' check (the schema's format): the message parse_hotplug_features dies with. */
export function checkHotplugFeatures(value: string): string | undefined {
  try {
    parseHotplugFeatures(value);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

const CLOUDINIT_OPTIONS = ['citype', 'ciuser', 'cipassword', 'ciupgrade', 'cicustom', 'searchdomain', 'nameserver'];

/** $fast_plug_option: written at once on a running VM, whatever `hotplug` says (the cloud-init options too). */
export function isFastPlug(key: string): boolean {
  return (
    [
      'description',
      'hookscript',
      'lock',
      'migrate_downtime',
      'migrate_speed',
      'name',
      'onboot',
      'protection',
      'shares',
      'startup',
      'tags',
      'vmstatestorage',
      'sshkeys',
      ...CLOUDINIT_OPTIONS,
    ].includes(key) || /^ipconfig\d+$/.test(key)
  );
}

/** PVE::Tools::safe_string_ne: unset on both sides is equal, unset on one side differs. */
export function stringDiffers(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined && b === undefined) return false;
  if (a === undefined || b === undefined) return true;
  return a !== b;
}

/** PVE::Tools::safe_num_ne: as stringDiffers, compared as numbers. */
export function numberDiffers(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined && b === undefined) return false;
  if (a === undefined || b === undefined) return true;
  return Number(a) !== Number(b);
}
