import type { SimVm } from './cluster';

/**
 * What qemu-server keeps in a config's `[special:cloudinit]` section: the cloud-init settings that
 * changed since the drive was last generated (at create, start, or `PUT …/cloudinit`), their old values
 * and the keys `added` since. The simulator keeps the settings as generated (`cloudinitRecord`) and
 * derives the section from them; `GET …/cloudinit` reports it as cloudinit_pending does, quirks included
 * (only the cloudinitoptions are listed among the kept values, so a changed ipconfigN shows nowhere).
 */
const CLOUDINIT_OPTIONS = [
  'cicustom',
  'cipassword',
  'citype',
  'ciuser',
  'ciupgrade',
  'nameserver',
  'searchdomain',
  'sshkeys',
];
/** cloudinit_pending_properties: the options, ipconfigN, the NICs and the name. */
const tracked = (key: string) => CLOUDINIT_OPTIONS.includes(key) || /^(ipconfig|net)\d+$/.test(key) || key === 'name';

export function recordCloudInit(vm: SimVm): void {
  vm.cloudinitRecord = Object.fromEntries(Object.entries(vm.config).filter(([k]) => tracked(k)));
}

/** The `[special:cloudinit]` section: old values of changed or deleted settings, and the added keys. */
function specialSection(vm: SimVm): { old: Record<string, string>; added: string[] } {
  const record = vm.cloudinitRecord ?? {};
  const old: Record<string, string> = {};
  const added: string[] = [];
  for (const key of new Set([...Object.keys(record), ...Object.keys(vm.config)])) {
    if (!tracked(key)) continue;
    if (record[key] === undefined) added.push(key);
    else if (record[key] !== vm.config[key]) old[key] = record[key]!;
  }
  return { old, added: added.sort() };
}

/** Cloudinit::has_changes: the section records a changed, deleted or added setting. */
export function cloudInitHasChanges(vm: SimVm): boolean {
  const { old, added } = specialSection(vm);
  return added.length > 0 || Object.keys(old).length > 0;
}

export function cloudInitPendingItems(vm: SimVm): Array<Record<string, unknown>> {
  const { old, added } = specialSection(vm);
  const masked = (key: string, value: string | undefined) =>
    key === 'cipassword' && value !== undefined ? '**********' : value;
  const items: Array<Record<string, unknown>> = added.map((key) => ({ key, pending: masked(key, vm.config[key]) }));
  const addedText = added.join(',');
  for (const opt of CLOUDINIT_OPTIONS) {
    if (!vm.config[opt] || addedText.includes(opt)) continue; // PVE matches `$added =~ m/$opt/`
    items.push(
      old[opt] !== undefined
        ? { key: opt, value: masked(opt, old[opt]), pending: masked(opt, vm.config[opt]) }
        : { key: opt, value: masked(opt, vm.config[opt]) },
    );
  }
  for (const opt of Object.keys(old)) if (!vm.config[opt]) items.push({ key: opt, delete: 1 });
  return items;
}
