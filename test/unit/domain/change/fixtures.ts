import {
  DEFAULT_CHANGE_POLICY,
  changePolicySchema,
  intentFromSpec,
  planChanges,
  type Baseline,
  type ChangePlan,
  type ChangePolicyInput,
  type PendingEntry,
  type PlannedChange,
  type StorageFacts,
  type VmIntent,
  type VmReality,
} from '../../../../src/domain/change';
import {
  bareVm,
  pveNicOf,
  specFromRecord,
  vmOptions,
  type NetboxVmRecord,
  type ProvisionSpec,
  type SpecDefaults,
} from '../../../../src/domain/provisioning';
import { formatPropertyString } from '../../../../src/domain/pve-property-string';
import { formatNic } from '../../../../src/proxmox/nics';

/** Test facts for the change plan: a NetBox record, the config provisioning gives it in Proxmox, storages. */

export const DEFAULTS: SpecDefaults = {
  node: 'pve1',
  storage: 'local-lvm',
  network: 'vmbr0',
  prefix: '192.0.2.0/24',
  ostype: 'l26',
  nicModel: 'virtio',
  tags: ['ferry'],
  extras: { rng0: 'source=/dev/urandom' },
  start: false,
};

export const RECORD: NetboxVmRecord = {
  id: 42,
  name: 'web1',
  status: 'active',
  vcpus: 2,
  memoryMB: 2048,
  diskMB: 20_480,
  tags: ['web'],
  fields: { vmid: 9001, vlan: 20 },
};

export const MAC0 = 'BC:24:11:00:00:01';
export const MAC1 = 'BC:24:11:00:00:02';
export const GIB = 1024 ** 3;

export const STORAGES: StorageFacts[] = [
  { id: 'local-lvm', content: ['images', 'rootdir'], active: true, availBytes: 500 * GIB },
  { id: 'fast', content: ['images'], active: true, availBytes: 100 * GIB },
  { id: 'local', content: ['iso', 'import', 'vztmpl'], active: true, availBytes: 50 * GIB },
  { id: 'offline', content: ['images'], active: false, availBytes: 100 * GIB },
];

export function specOf(record: NetboxVmRecord, defaults: SpecDefaults = DEFAULTS): ProvisionSpec {
  const built = specFromRecord(record, defaults);
  if (!built.ok) throw new Error(built.problems.join('\n'));
  return built.spec;
}

/** NetBox's intent as the workflow makes it: provisioning's spec of the record, then its intent. */
export function intentOf(record: NetboxVmRecord, defaults: SpecDefaults = DEFAULTS): VmIntent {
  return intentFromSpec(specOf(record, defaults), { record, defaults });
}

/**
 * The config Proxmox has after provisioning built the spec (the same steps: the bare VM, each disk with
 * its options and size, each NIC with the MAC Proxmox gave it, the options), as `GET …/config` lists it.
 */
export function provisionedConfig(
  spec: ProvisionSpec,
  vmid = 9001,
  macs: string[] = [MAC0, MAC1],
): Record<string, string> {
  const bare = bareVm({ ...spec, node: spec.node ?? 'pve1' }, vmid);
  const config: Record<string, string> = {
    name: bare.name,
    machine: bare.machine,
    bios: bare.bios,
    efidisk0: `${bare.efidisk.storage}:vm-${vmid}-disk-0,efitype=4m,pre-enrolled-keys=1,size=4M`,
    cores: String(bare.cores),
    sockets: String(bare.sockets),
    memory: String(bare.memory),
    ostype: bare.ostype,
    scsihw: bare.scsihw,
    agent: bare.agent,
    tags: bare.tags.join(';'),
    ...vmOptions(spec),
  };
  spec.disks.forEach((d, i) => {
    const options = Object.fromEntries(Object.entries(d.options).map(([k, v]) => [k, String(v)]));
    config[d.slot] = formatPropertyString(
      { file: `${d.storage}:vm-${vmid}-disk-${i + 1}`, ...options, size: `${d.sizeGiB}G` },
      'file',
    );
  });
  spec.nics.forEach((n, i) => {
    const nic = pveNicOf(n);
    config[n.slot] = formatNic({ ...nic, macaddr: nic.macaddr ?? macs[i]! });
  });
  if (spec.cloudInit) config.scsi30 = `local-lvm:vm-${vmid}-cloudinit,media=cdrom`;
  return config;
}

/** The NetBox record as provisioning leaves it: its interfaces named after their slots, with Proxmox's MACs. */
export function provisionedRecord(record: NetboxVmRecord, macs: string[] = [MAC0, MAC1]): NetboxVmRecord {
  const spec = specOf(record);
  return {
    ...record,
    interfaces: spec.nics.map((n, i) => ({
      id: 100 + i,
      name: n.slot,
      enabled: true,
      taggedVlans: [],
      mac: n.mac ?? macs[i]!,
      fields: {},
    })),
  };
}

export function reality(config: Record<string, string>, extra: Partial<VmReality> = {}): VmReality {
  return { vmid: 9001, node: 'pve1', power: 'running', config, pending: [], storages: STORAGES, ...extra };
}

export function pending(...entries: PendingEntry[]): PendingEntry[] {
  return entries;
}

export function policy(input: ChangePolicyInput = {}) {
  return input === undefined ? DEFAULT_CHANGE_POLICY : changePolicySchema.parse(input);
}

/** The config of the provisioned RECORD, with edits (undefined removes a key). */
export function configWith(
  edits: Record<string, string | undefined> = {},
  record: NetboxVmRecord = RECORD,
): Record<string, string> {
  const config = provisionedConfig(specOf(record));
  for (const [key, value] of Object.entries(edits)) {
    if (value === undefined) delete config[key];
    else config[key] = value;
  }
  return config;
}

/** Plans RECORD (edited) against a VM config; the default: the VM as provisioned, running. */
export function planFor(
  recordEdits: Partial<NetboxVmRecord> = {},
  vm: Partial<VmReality> = {},
  options: { baseline?: Baseline; policy?: ChangePolicyInput } = {},
): ChangePlan {
  const record = provisionedRecord(RECORD);
  const intent = intentOf({ ...record, ...recordEdits });
  const vmReality = reality(vm.config ?? configWith(), vm);
  return planChanges(intent, vmReality, options.baseline, policy(options.policy ?? {}));
}

export function only(plan: ChangePlan, id: string): PlannedChange {
  const found = plan.changes.filter((c) => c.id === id);
  if (found.length !== 1)
    throw new Error(`expected one change ${id}, got: ${plan.changes.map((c) => c.id).join(', ') || 'none'}`);
  return found[0]!;
}

export function ids(plan: ChangePlan): string[] {
  return plan.changes.map((c) => c.id);
}
