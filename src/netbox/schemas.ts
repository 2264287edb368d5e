import { z } from 'zod';

/**
 * The parts of NetBox 4.x answers ferry reads (field names as in NetBox's OpenAPI schema). Objects are
 * loose: NetBox adds fields between releases, and ferry ignores what it does not use.
 */
const ref = z.looseObject({ id: z.number().int(), display: z.string().optional(), name: z.string().optional() });
const choice = z.looseObject({ value: z.string(), label: z.string() });

export const statusSchema = z.looseObject({
  'netbox-version': z.string(),
  'django-version': z.string().optional(),
  'python-version': z.string().optional(),
  plugins: z.record(z.string(), z.unknown()).optional(),
});
export type NetboxStatus = z.infer<typeof statusSchema>;

export const virtualMachineSchema = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  status: choice,
  site: ref.nullable().optional(),
  cluster: ref.nullable().optional(),
  primary_ip4: z.looseObject({ id: z.number().int(), address: z.string() }).nullable().optional(),
  vcpus: z.number().nullable().optional(),
  /** MB. */
  memory: z.number().nullable().optional(),
  /** MB since NetBox 4.1. */
  disk: z.number().nullable().optional(),
  tags: z.array(z.looseObject({ id: z.number().int(), slug: z.string(), name: z.string() })).default([]),
  custom_fields: z.record(z.string(), z.unknown()).default({}),
  last_updated: z.string().nullable().optional(),
  /** NetBox's count of the VM's interfaces (a counter it keeps without touching `last_updated`). */
  interface_count: z.number().int().nullable().optional(),
});
export type VirtualMachine = z.infer<typeof virtualMachineSchema>;

/** A VM read with `fields=id,custom_fields`. */
export const vmidOnlySchema = z.looseObject({
  id: z.number().int(),
  custom_fields: z.record(z.string(), z.unknown()).default({}),
});

export const macAddressSchema = z.looseObject({
  id: z.number().int(),
  mac_address: z.string(),
  assigned_object_type: z.string().nullable().optional(),
  assigned_object_id: z.number().int().nullable().optional(),
});
export type MacAddress = z.infer<typeof macAddressSchema>;

const vlanRef = z.looseObject({ id: z.number().int(), vid: z.number().int(), name: z.string().optional() });

export const vmInterfaceSchema = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  virtual_machine: ref,
  enabled: z.boolean().optional(),
  primary_mac_address: z.looseObject({ id: z.number().int(), mac_address: z.string() }).nullable().optional(),
  /** A sub-interface's parent. */
  parent: ref.nullable().optional(),
  mtu: z.number().int().nullable().optional(),
  /** 802.1Q mode: access, tagged, tagged-all, q-in-q. */
  mode: choice.nullable().optional(),
  untagged_vlan: vlanRef.nullable().optional(),
  tagged_vlans: z.array(vlanRef).default([]),
  custom_fields: z.record(z.string(), z.unknown()).default({}),
});
export type VmInterface = z.infer<typeof vmInterfaceSchema>;

/** A VM's virtual disk (NetBox 4.0+); `size` in MB. */
export const virtualDiskSchema = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  virtual_machine: ref,
  size: z.number().int(),
  custom_fields: z.record(z.string(), z.unknown()).default({}),
});
export type VirtualDisk = z.infer<typeof virtualDiskSchema>;

export const ipAddressSchema = z.looseObject({
  id: z.number().int(),
  /** CIDR form: `192.0.2.10/24`. */
  address: z.string(),
  status: choice,
  dns_name: z.string().optional(),
  description: z.string().optional(),
  assigned_object_type: z.string().nullable().optional(),
  assigned_object_id: z.number().int().nullable().optional(),
});
export type IpAddress = z.infer<typeof ipAddressSchema>;

export const journalEntrySchema = z.looseObject({ id: z.number().int(), kind: choice, comments: z.string() });

export const prefixSchema = z.looseObject({
  id: z.number().int(),
  prefix: z.string(),
  vrf: z.looseObject({ id: z.number().int(), name: z.string() }).nullable().optional(),
});
export type Prefix = z.infer<typeof prefixSchema>;

export const customFieldSchema = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  type: choice,
  object_types: z.array(z.string()),
  label: z.string().optional(),
  description: z.string().optional(),
  validation_minimum: z.number().nullable().optional(),
  validation_maximum: z.number().nullable().optional(),
});
export type CustomField = z.infer<typeof customFieldSchema>;

export const tokenSchema = z.looseObject({
  id: z.number().int(),
  version: z.number().int().optional(),
  token: z.string().optional(),
  key: z.string().nullable().optional(),
});

/** Any object answer we only need the id of. */
export const idOnly = z.looseObject({ id: z.number().int() });
export const anything = z.unknown();
