import { hardwareSource, recordDisks, recordNics } from './record-hardware';
import { validateSpec, type NetboxVmRecord, type SpecDefaults, type SpecResult } from './spec';

/** Where each spec value of a NetBox-built spec came from, for problems a person can fix in NetBox. */
const RECORD_SOURCES: Record<string, string> = {
  name: 'name',
  vmid: 'custom field ferry_vmid',
  node: 'custom field ferry_node (or provisioning.node)',
  cores: 'vcpus',
  memoryMiB: 'memory (MB)',
  'disks.0.sizeGiB': 'disk (MB)',
  'disks.0.storage': 'custom field ferry_storage (or provisioning.storage)',
  'nics.0.network': 'custom field ferry_network (or provisioning.network)',
  'nics.0.vlan': 'custom field ferry_vlan',
  iso: 'custom field ferry_iso',
  'disks.0.importFrom': 'custom field ferry_image',
  cloudInit: 'custom field ferry_image (its address goes on a cloud-init drive: set provisioning.prefix)',
  tags: 'tags',
};

/**
 * The spec of a NetBox VM: its name, vCPUs, memory, disks and NICs (record-hardware.ts), ferry's custom
 * fields, and the configured defaults for what the record leaves open. A record without virtual disks
 * gets one disk (scsi0, the record's `disk`; made from ferry_image when set, with a cloud-init drive);
 * without interfaces one NIC (net0). The address comes from the configured prefix.
 */
export function specFromRecord(record: NetboxVmRecord, defaults: SpecDefaults): SpecResult {
  const f = record.fields;
  const disks = recordDisks(record, defaults);
  const nics = recordNics(record, defaults);
  const spec = {
    name: record.name,
    netboxId: record.id,
    ...(f.vmid !== undefined ? { vmid: f.vmid } : {}),
    ...((f.node ?? defaults.node) !== undefined ? { node: f.node ?? defaults.node } : {}),
    cores: record.vcpus === undefined ? undefined : Math.ceil(record.vcpus),
    memoryMiB: record.memoryMB,
    ostype: defaults.ostype,
    ...(defaults.efiStorage ? { efiStorage: defaults.efiStorage } : {}),
    ...(f.iso ? { iso: f.iso } : {}),
    disks: disks.items,
    nics: nics.items,
    extras: defaults.extras,
    tags: [...new Set([...defaults.tags, ...record.tags])],
    ...(defaults.prefix ? { prefix: defaults.prefix } : {}),
    ...(defaults.dnsZone && defaults.prefix ? { dnsZone: defaults.dnsZone } : {}),
    start: defaults.start,
    ...(defaults.secureBoot === false ? { secureBoot: false } : {}),
    // An image boots on its own: it learns its NetBox address from a cloud-init drive (an installer ISO would ask a person).
    ...(f.image ? { cloudInit: true } : {}),
    description: `Provisioned by ferry from NetBox VM ${record.id}${f.owner ? `; owner: ${f.owner}` : ''}`,
  };
  const where = `NetBox VM "${record.name}" (id ${record.id})`;
  const rename = (path: string) => hardwareSource(record, path) ?? RECORD_SOURCES[path] ?? path;
  const result = validateSpec(spec, where, rename);
  const readProblems = [...disks.problems, ...nics.problems].map((p) => `${where}: ${p}`);
  if (disks.items.length === 0) {
    // Without a disk the EFI storage has no default either: the missing disk is the problem to report.
    const others = result.ok ? [] : result.problems.filter((p) => !p.startsWith(`${where}: efiStorage:`));
    const missing = `${where}: disk (MB): not set; ferry needs the size of the VM's disk`;
    return { ok: false, problems: [...readProblems, ...others, missing] };
  }
  if (readProblems.length === 0) return result;
  return { ok: false, problems: [...readProblems, ...(result.ok ? [] : result.problems)] };
}
