import { z } from 'zod';
import { NetboxError } from './errors';
import type { VirtualMachine } from './schemas';
import type { DiskFields, InterfaceFields, RecordFields } from '../domain/provisioning/spec';

/** The object types ferry's custom fields belong to: VMs, their interfaces and their virtual disks. */
export const VM_OBJECT_TYPE = 'virtualization.virtualmachine';
export const INTERFACE_OBJECT_TYPE = 'virtualization.vminterface';
export const VIRTUAL_DISK_OBJECT_TYPE = 'virtualization.virtualdisk';

export interface FerryCustomField {
  name: string;
  type: 'integer' | 'text' | 'decimal' | 'boolean' | 'json';
  label: string;
  description: string;
  /** Where the field is (absent: VMs only). */
  objectTypes?: readonly string[];
  validationMinimum?: number;
  validationMaximum?: number;
  validationRegex?: string;
}

/** The object types a field belongs to. */
export function objectTypesOf(field: FerryCustomField): readonly string[] {
  return field.objectTypes ?? [VM_OBJECT_TYPE];
}

/**
 * The custom fields ferry reads from a NetBox VM, its interfaces and virtual disks (all optional in
 * NetBox; each workflow says which it needs). `ferry netbox setup` creates them; docs/netbox-dns.md lists them.
 */
export const FERRY_CUSTOM_FIELDS: readonly FerryCustomField[] = [
  {
    name: 'ferry_vmid',
    type: 'integer',
    label: 'Proxmox VMID',
    description: 'VMID of the VM in Proxmox VE (the source of truth for it: ferry never picks one itself)',
    validationMinimum: 100,
    validationMaximum: 999_999_999,
  },
  {
    name: 'ferry_node',
    type: 'text',
    label: 'Proxmox node',
    description: 'Proxmox VE node the VM is created on',
    validationRegex: '^[A-Za-z0-9][A-Za-z0-9.-]*$',
  },
  {
    name: 'ferry_storage',
    type: 'text',
    label: 'Proxmox storage',
    description: "Proxmox VE storage for the VM's disks (on a virtual disk: for that disk; a change moves it)",
    objectTypes: [VM_OBJECT_TYPE, VIRTUAL_DISK_OBJECT_TYPE],
    validationRegex: '^[A-Za-z][A-Za-z0-9._-]*$',
  },
  {
    name: 'ferry_network',
    type: 'text',
    label: 'Bridge or VNet',
    description: 'Linux bridge (vmbr0) or SDN VNet the first NIC attaches to (on an interface: that NIC)',
    objectTypes: [VM_OBJECT_TYPE, INTERFACE_OBJECT_TYPE],
    validationRegex: '^[A-Za-z][A-Za-z0-9._-]*$',
  },
  {
    name: 'ferry_vlan',
    type: 'integer',
    label: 'VLAN',
    description: 'VLAN tag of the first NIC on a bridge (none on a VNet)',
    validationMinimum: 1,
    validationMaximum: 4094,
  },
  {
    name: 'ferry_iso',
    type: 'text',
    label: 'Install ISO',
    description: 'ISO volume to boot the installer from, e.g. local:iso/debian-13.iso',
    validationRegex: '^[A-Za-z][A-Za-z0-9._-]*:iso/.+$',
  },
  {
    name: 'ferry_image',
    type: 'text',
    label: 'Disk image',
    description:
      'Image the first disk is made from (import-from), e.g. local:import/debian-12.qcow2; the VM gets its address on a cloud-init drive',
    validationRegex: '^[A-Za-z][A-Za-z0-9._-]*:\\S+$',
  },
  {
    name: 'ferry_rate',
    type: 'decimal',
    label: 'Rate limit (MB/s)',
    description: 'Rate limit of the NIC in MB/s (Proxmox rate); empty: none',
    objectTypes: [INTERFACE_OBJECT_TYPE],
    validationMinimum: 0,
  },
  {
    name: 'ferry_queues',
    type: 'integer',
    label: 'Queues',
    description: 'Packet queues of the NIC (Proxmox queues, virtio only)',
    objectTypes: [INTERFACE_OBJECT_TYPE],
    validationMinimum: 0,
    validationMaximum: 64,
  },
  {
    name: 'ferry_firewall',
    type: 'boolean',
    label: 'Proxmox firewall',
    description: "The NIC is behind Proxmox's firewall (Proxmox firewall=1)",
    objectTypes: [INTERFACE_OBJECT_TYPE],
  },
  {
    name: 'ferry_disk_options',
    type: 'text',
    label: 'Disk options',
    description:
      'Proxmox disk options: iothread, discard, ssd, cache, backup, replicate, aio (e.g. iothread=1,discard=on,ssd=1)',
    objectTypes: [VIRTUAL_DISK_OBJECT_TYPE],
    validationRegex: '^[a-z_]+=[^,=]+(,[a-z_]+=[^,=]+)*$',
  },
  {
    name: 'ferry_applied',
    type: 'json',
    label: 'Applied by ferry',
    description:
      'What ferry last applied to the Proxmox VM (written by ferry; tells a NetBox edit from a change by hand)',
  },
  { name: 'ferry_owner', type: 'text', label: 'Owner', description: 'Person or team responsible for the VM' },
];

const text = () => z.string({ error: 'must be text' }).min(1, 'must not be empty');
const integer = (min: number, max: number) =>
  z
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);

const ferryFieldsSchema = z.object({
  ferry_vmid: integer(100, 999_999_999).nullish(),
  ferry_node: text().nullish(),
  ferry_storage: text().nullish(),
  ferry_network: text().nullish(),
  ferry_vlan: integer(1, 4094).nullish(),
  ferry_iso: text().nullish(),
  ferry_image: text().nullish(),
  ferry_owner: text().nullish(),
});

/** A VM's ferry custom fields, typed; a field that is not set is absent (the shape provisioning reads). */
export type FerryVmFields = RecordFields;

/** Reads ferry's custom fields from a VM, saying which field of which VM is wrong. */
export function ferryFields(vm: Pick<VirtualMachine, 'id' | 'name' | 'custom_fields'>): FerryVmFields {
  const f = parseFields(ferryFieldsSchema, vm.custom_fields, `NetBox VM "${vm.name}" (id ${vm.id})`);
  return defined({
    vmid: f.ferry_vmid,
    node: f.ferry_node,
    storage: f.ferry_storage,
    network: f.ferry_network,
    vlan: f.ferry_vlan,
    iso: f.ferry_iso,
    image: f.ferry_image,
    owner: f.ferry_owner,
  });
}

/** NetBox answers a decimal custom field as a number (or, from some versions, as text). */
const decimal = z
  .union([z.number(), z.string().regex(/^\d+(\.\d+)?$/, 'must be a number')], { error: 'must be a number' })
  .transform(Number)
  .pipe(z.number().min(0, 'must be at least 0'));

const interfaceFieldsSchema = z.object({
  ferry_network: text().nullish(),
  ferry_rate: decimal.nullish(),
  ferry_queues: integer(0, 64).nullish(),
  ferry_firewall: z.boolean({ error: 'must be true or false' }).nullish(),
});

const diskFieldsSchema = z.object({
  ferry_storage: text().nullish(),
  ferry_disk_options: text().nullish(),
});

/** Reads ferry's custom fields of a VM interface, saying which field of which interface is wrong. */
export function interfaceFields(iface: {
  id: number;
  name: string;
  custom_fields?: Record<string, unknown>;
}): InterfaceFields {
  const f = parseFields(
    interfaceFieldsSchema,
    iface.custom_fields ?? {},
    `NetBox interface "${iface.name}" (id ${iface.id})`,
  );
  return defined({ network: f.ferry_network, rate: f.ferry_rate, queues: f.ferry_queues, firewall: f.ferry_firewall });
}

/** Reads ferry's custom fields of a virtual disk, saying which field of which disk is wrong. */
export function virtualDiskFields(disk: {
  id: number;
  name: string;
  custom_fields?: Record<string, unknown>;
}): DiskFields {
  const f = parseFields(
    diskFieldsSchema,
    disk.custom_fields ?? {},
    `NetBox virtual disk "${disk.name}" (id ${disk.id})`,
  );
  return defined({ storage: f.ferry_storage, options: f.ferry_disk_options });
}

function parseFields<S extends z.ZodType>(schema: S, customFields: Record<string, unknown>, what: string): z.output<S> {
  const parsed = schema.safeParse(customFields);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map(
    (i) => `${String(i.path[0])}: ${i.message} (got ${JSON.stringify(customFields[String(i.path[0])])})`,
  );
  throw new NetboxError(`${what} has invalid ferry custom fields: ${problems.join('; ')}`, 'invalid');
}

/** The object without its null or undefined values (a field not set is absent). */
function defined<T extends object>(fields: { [K in keyof T]: T[K] | null | undefined }): T {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && v !== null)) as T;
}
