import { z } from 'zod';
import { PVE_VMID_MAX, PVE_VMID_MIN } from '../vmid';
import { DISK_OPTION_KEYS } from './disk-option-keys';
import { hardwareSource, recordDisks, recordNics } from './record-hardware';

export { DISK_OPTION_KEYS };

/**
 * What a provisioned VM is: the spec a `provisionVm` workflow builds, from a NetBox record (with the
 * configured defaults) or given whole. Validated before anything is touched; a bad spec fails at once
 * with every problem listed, each with where it is.
 */

/** A VM name that is also a DNS label (it becomes `<name>.<zone>`). */
export const PVE_NAME = /^(?=.{1,63}$)[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?$/;
export const PVE_STORAGE_ID = /^[A-Za-z][A-Za-z0-9_.-]*[A-Za-z0-9]$/;
export const PVE_TAG = /^[A-Za-z0-9_][A-Za-z0-9_+.-]*$/;
export const DISK_SLOT = /^(scsi([0-9]|[12][0-9]|30)|virtio([0-9]|1[0-5])|sata[0-5])$/;
export const NIC_SLOT = /^net([0-9]|[12][0-9]|3[01])$/;
const ISO_VOLUME = /^[A-Za-z][A-Za-z0-9_.-]*:iso\/[^,;=\s]+$/;
const IPV4_PREFIX = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}\/([0-9]|[12][0-9]|3[0-2])$/;
const DNS_ZONE = /^(?=.{1,253}\.?$)([A-Za-z0-9_-]{1,63}\.)*[A-Za-z0-9_-]{1,63}\.?$/;
const MAC = /^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$/;
/** Cross-key checks run even when a key has the wrong type: every problem in one pass. */
const ALWAYS = { when: () => true } as const;

/**
 * VM options a spec may set through the config API besides its disks and NICs. Everything else is
 * either ferry's own (machine, bios, efidisk0, scsihw, agent, disks, NICs, boot) or needs root (args).
 */
export const EXTRA_OPTION_KEYS = [
  'rng0',
  'serial0',
  'serial1',
  'vga',
  'balloon',
  'numa',
  'hotplug',
  'cpu',
  'onboot',
  'startup',
  'protection',
  'tablet',
  'localtime',
  'description',
];

/**
 * Where the cloud-init drive goes: a SCSI CD-ROM, not PVE's usual ide2. On q35 (every provisioned VM)
 * ide2 sits on the ICH9 AHCI controller, and cloud kernels (Debian's linux-image-cloud-amd64) have no
 * AHCI driver, so the guest would never see the drive; virtio-scsi they all have.
 */
export const CLOUD_INIT_SLOT = 'scsi30';

export const NIC_MODELS = ['virtio', 'e1000', 'e1000e', 'vmxnet3', 'rtl8139'] as const;

/** What becomes of a torn-down VM's NetBox record. */
export const NETBOX_AFTER_TEARDOWN = ['delete', 'decommissioning', 'offline'] as const;
export type NetboxAfterTeardown = (typeof NETBOX_AFTER_TEARDOWN)[number];

const storageId = z.string().regex(PVE_STORAGE_ID, 'a Proxmox storage id such as local-lvm');

const diskSchema = z
  .object({
    slot: z.string().regex(DISK_SLOT, 'scsi0–30, virtio0–15 or sata0–5 (ide2 holds the ISO)'),
    storage: storageId,
    sizeGiB: z.number().int('a whole number of GiB').min(1, 'at least 1 GiB').max(131_072, 'at most 128 TiB'),
    /** An image the disk is made from (`import-from`, only when the slot is empty): a volume such as local:import/debian.qcow2. */
    importFrom: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9._-]*:\S+$/, 'a volume id such as local:import/debian.qcow2')
      .optional(),
    options: z
      .record(z.string(), z.union([z.string().min(1), z.number(), z.boolean()]))
      .refine((o) => !isObject(o) || Object.keys(o).every((k) => DISK_OPTION_KEYS.includes(k)), {
        message: `only ${DISK_OPTION_KEYS.join(', ')}`,
        ...ALWAYS,
      })
      .default({}),
  })
  .strict();

const nicSchema = z
  .object({
    slot: z.string().regex(NIC_SLOT, 'net0–net31'),
    /** Linux bridge (vmbr0) or SDN VNet. */
    network: z.string().regex(PVE_STORAGE_ID, 'a bridge (vmbr0) or VNet id'),
    vlan: z.number().int('a whole number').min(1, 'VLAN 1–4094').max(4094, 'VLAN 1–4094').optional(),
    model: z.enum(NIC_MODELS).default('virtio'),
    firewall: z.boolean().optional(),
    /** VLANs carried tagged (a NetBox interface in mode Tagged): Proxmox `trunks`. */
    trunks: z
      .array(z.number().int('a whole number').min(1, 'VLAN 1–4094').max(4094, 'VLAN 1–4094'))
      .min(1, 'at least one VLAN')
      .optional(),
    /** 1: the bridge's MTU (Proxmox applies an MTU to virtio NICs only). */
    mtu: z.number().int('a whole number').min(1, 'at least 1').max(65_520, 'at most 65520').optional(),
    /** Disconnected, like a pulled cable (a NetBox interface that is not enabled). */
    linkDown: z.boolean().optional(),
    /** Rate limit in MB/s. */
    rate: z.number().min(0, 'at least 0').optional(),
    queues: z.number().int('a whole number').min(0, 'at least 0').max(64, 'at most 64').optional(),
    /** Keep the MAC Proxmox gave the NIC unless one is given here. */
    mac: z.string().regex(MAC, 'a MAC address such as BC:24:11:00:00:01').optional(),
  })
  .strict();

export const provisionSpecSchema = z
  .object({
    name: z
      .string()
      .regex(PVE_NAME, 'a DNS label: letters, digits and dashes, at most 63, not starting or ending with a dash'),
    /** The NetBox VM this is (interface, address and status are kept there); none: Proxmox and DNS only. */
    netboxId: z.number().int().positive().optional(),
    /** Absent: allocated by ferry's single VMID allocator (and written to NetBox first). */
    vmid: z
      .number()
      .int()
      .min(PVE_VMID_MIN, `at least ${PVE_VMID_MIN}`)
      .max(PVE_VMID_MAX, `at most ${PVE_VMID_MAX}`)
      .optional(),
    /** Absent: placed over every online node where there is room (src/domain/placement/provision.ts). */
    node: z.string().regex(PVE_NAME, 'a Proxmox node name').optional(),
    cores: z.number().int('a whole number').min(1, 'at least 1').max(512, 'at most 512'),
    sockets: z.number().int('a whole number').min(1, 'at least 1').max(16, 'at most 16').default(1),
    memoryMiB: z.number().int('a whole number of MiB').min(16, 'at least 16 MiB').max(4_194_304, 'at most 4 TiB'),
    ostype: z
      .string()
      .regex(/^[a-z0-9]+$/, 'a Proxmox ostype such as l26 or win11')
      .default('l26'),
    /** EFI vars disk storage; default: the first disk's. */
    efiStorage: storageId.optional(),
    /** Installer ISO, attached as ide2 (`local:iso/debian-13-netinst.iso`). */
    iso: z.string().regex(ISO_VOLUME, 'an ISO volume such as local:iso/debian.iso').optional(),
    disks: z.array(diskSchema).default([]),
    nics: z.array(nicSchema).default([]),
    extras: z
      .record(z.string(), z.string().min(1))
      .refine((e) => !isObject(e) || Object.keys(e).every((k) => EXTRA_OPTION_KEYS.includes(k)), {
        message: `only ${EXTRA_OPTION_KEYS.join(', ')}`,
        ...ALWAYS,
      })
      .default({}),
    tags: z.array(z.string().regex(PVE_TAG, 'a Proxmox tag: letters, digits, - _ + .')).default([]),
    /** NetBox prefix the first NIC's address is allocated from. */
    prefix: z.string().regex(IPV4_PREFIX, 'an IPv4 prefix such as 192.0.2.0/24').optional(),
    /** Forward zone for `<name>.<dnsZone> A` (and the matching PTR). */
    dnsZone: z.string().regex(DNS_ZONE, 'a DNS zone such as lab.example.com').optional(),
    start: z.boolean().default(false),
    /** Secure Boot with Microsoft's keys enrolled (`efidisk0 … pre-enrolled-keys=1`); false for an image whose boot loader is unsigned. */
    secureBoot: z.boolean().optional(),
    /** A cloud-init drive (CLOUD_INIT_SLOT) that gives the guest its NetBox address on net0 (`ipconfig0`). */
    cloudInit: z.boolean().optional(),
    // Proxmox takes 8 KiB; ferry adds a line naming the workflow run that created the VM.
    description: z.string().max(7680).optional(),
  })
  .strict()
  .superRefine((given, ctx) => {
    // Run even when some key has the wrong type, so one pass lists every problem: the values are as given.
    if (!isObject(given)) return; // not a mapping at all: its type error says so
    const spec = given as Partial<Record<keyof typeof given, unknown>>;
    const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
    const slotsOf = (v: unknown) =>
      list(v).flatMap((item) => (isObject(item) && typeof item.slot === 'string' ? [item.slot] : []));
    const dup = (slots: string[]) => slots.filter((s, i) => slots.indexOf(s) !== i);
    for (const slot of new Set(dup(slotsOf(spec.disks))))
      ctx.addIssue({ code: 'custom', path: ['disks'], message: `slot ${slot} is used twice` });
    for (const slot of new Set(dup(slotsOf(spec.nics))))
      ctx.addIssue({ code: 'custom', path: ['nics'], message: `slot ${slot} is used twice` });
    if (!spec.efiStorage && list(spec.disks).length === 0 && (spec.disks === undefined || Array.isArray(spec.disks))) {
      ctx.addIssue({
        code: 'custom',
        path: ['efiStorage'],
        message: 'needed when there is no disk (the EFI vars disk goes on the first disk’s storage otherwise)',
      });
    }
    if (spec.prefix && !spec.netboxId)
      ctx.addIssue({
        code: 'custom',
        path: ['prefix'],
        message: 'addresses are allocated in NetBox: set netboxId too',
      });
    if (spec.prefix && list(spec.nics).length === 0 && (spec.nics === undefined || Array.isArray(spec.nics)))
      ctx.addIssue({ code: 'custom', path: ['prefix'], message: 'an address needs a NIC: add one to nics' });
    if (spec.cloudInit === true && slotsOf(spec.disks).includes(CLOUD_INIT_SLOT))
      ctx.addIssue({
        code: 'custom',
        path: ['cloudInit'],
        message: `the cloud-init drive takes ${CLOUD_INIT_SLOT}: move that disk`,
      });
    if (spec.cloudInit === true && !spec.prefix)
      ctx.addIssue({
        code: 'custom',
        path: ['cloudInit'],
        message: 'the cloud-init drive carries the NetBox address: set prefix too',
      });
    if (spec.dnsZone && !spec.prefix)
      ctx.addIssue({ code: 'custom', path: ['dnsZone'], message: 'DNS records need an address: set prefix too' });
  }, ALWAYS);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export type ProvisionSpec = z.output<typeof provisionSpecSchema>;
export type ProvisionSpecInput = z.input<typeof provisionSpecSchema>;
export type DiskSpec = ProvisionSpec['disks'][number];
export type NicSpec = ProvisionSpec['nics'][number];

export type SpecResult = { ok: true; spec: ProvisionSpec } | { ok: false; problems: string[] };

/** Validates a spec; `where` names its source in every problem (`spec.yaml`, `NetBox VM "web1" (id 4)`). */
export function validateSpec(input: unknown, where = 'spec', rename: (path: string) => string = (p) => p): SpecResult {
  const parsed = provisionSpecSchema.safeParse(input);
  if (parsed.success) return { ok: true, spec: parsed.data };
  return {
    ok: false,
    problems: parsed.error.issues.map((issue) => `${where}: ${describeIssue(issue, input, rename)}`),
  };
}

function describeIssue(issue: z.core.$ZodIssue, input: unknown, rename: (path: string) => string): string {
  const path = rename(issue.path.map(String).join('.')) || '(top level)';
  if (issue.code === 'unrecognized_keys')
    return `${path}: unknown key(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
  if (issue.code === 'invalid_type' && issue.path.length > 0 && valueAt(input, issue.path) === undefined)
    return `${path}: missing`;
  return `${path}: ${issue.message}`;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let node = input;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

/** The ferry custom fields of a NetBox VM, as read (all optional). */
export interface RecordFields {
  vmid?: number;
  node?: string;
  storage?: string;
  network?: string;
  vlan?: number;
  iso?: string;
  /** A disk image the first disk is made from (import-from); the VM then gets a cloud-init drive with its address. */
  image?: string;
  owner?: string;
}

/** ferry's custom fields of a NetBox VM interface (all optional). */
export interface InterfaceFields {
  /** Bridge or VNet of this NIC (wins over the VM's ferry_network, which names net0's). */
  network?: string;
  /** Rate limit in MB/s. */
  rate?: number;
  queues?: number;
  firewall?: boolean;
}

/** A NetBox VM interface as ferry reads it. */
export interface RecordInterface {
  id: number;
  name: string;
  enabled: boolean;
  mtu?: number;
  /** 802.1Q mode: `access`, `tagged`, `tagged-all`, `q-in-q`; absent: none. */
  mode?: string;
  /** The untagged VLAN's VID. */
  untaggedVlan?: number;
  /** The tagged VLANs' VIDs. */
  taggedVlans: number[];
  /** Primary MAC, upper case. */
  mac?: string;
  /** The parent interface's id: a sub-interface is the guest's own, not a Proxmox NIC. */
  parentId?: number;
  fields: InterfaceFields;
}

/** ferry's custom fields of a NetBox virtual disk (all optional). */
export interface DiskFields {
  /** Storage of this disk (wins over the VM's ferry_storage). */
  storage?: string;
  /** Disk options as a Proxmox property string: `iothread=1,discard=on,ssd=1`. */
  options?: string;
}

/** A NetBox virtual disk as ferry reads it. */
export interface RecordDisk {
  id: number;
  name: string;
  /** MB as NetBox has it (ferry reads it as MiB, like the VM's memory). */
  sizeMB: number;
  fields: DiskFields;
}

/** A NetBox VM as provisioning reads it (units as NetBox has them: memory and disk in MB). */
export interface NetboxVmRecord {
  id: number;
  name: string;
  status: string;
  cluster?: string;
  vcpus?: number;
  memoryMB?: number;
  diskMB?: number;
  tags: string[];
  fields: RecordFields;
  /** How many interfaces the VM had when read. */
  interfaceCount?: number;
  /** The VM's interfaces, when read (day 2 reads them; each one named after its Proxmox slot, net0–net31). */
  interfaces?: RecordInterface[];
  /** The VM's virtual disks, when read (each one named after its Proxmox slot, scsi0, virtio1, …). */
  disks?: RecordDisk[];
  /** NetBox's ETag of the VM as read (NetBox 4.6+): a later write guarded by it needs no read first. */
  etag?: string;
}

/** A NetBox VM's ETag and status as a run last read or wrote them: what a later write is guarded by. */
export interface SeenVersion {
  etag: string;
  status: string;
}

/** A planned record as a batch reads it: whole, or the reason its ferry fields cannot be read. */
export type PlannedRecord = NetboxVmRecord | { id: number; name: string; problem: string };

/** The configured defaults a NetBox record is completed with (ferry.yaml `provisioning`). */
export interface SpecDefaults {
  /** Absent: a record without ferry_node is placed. */
  node?: string;
  storage: string;
  efiStorage?: string;
  network: string;
  prefix?: string;
  dnsZone?: string;
  ostype: string;
  nicModel: (typeof NIC_MODELS)[number];
  tags: string[];
  extras: Record<string, string>;
  start: boolean;
  /** false: no Secure Boot keys (images with an unsigned boot loader); absent: the spec's default. */
  secureBoot?: false;
}

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
