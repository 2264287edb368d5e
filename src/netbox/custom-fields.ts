import { z } from 'zod';
import { NetboxError } from './errors';
import type { VirtualMachine } from './schemas';
import type { RecordFields } from '../domain/provisioning/spec';

/** The object type ferry's custom fields belong to. */
export const VM_OBJECT_TYPE = 'virtualization.virtualmachine';

export interface FerryCustomField {
  name: string;
  type: 'integer' | 'text';
  label: string;
  description: string;
  validationMinimum?: number;
  validationMaximum?: number;
  validationRegex?: string;
}

/**
 * The custom fields ferry reads from a NetBox VM (all optional in NetBox; each workflow says which it
 * needs). `ferry netbox setup` creates them; README "NetBox and DNS" lists them.
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
    description: 'Proxmox VE storage for the VM disks',
    validationRegex: '^[A-Za-z][A-Za-z0-9._-]*$',
  },
  {
    name: 'ferry_network',
    type: 'text',
    label: 'Bridge or VNet',
    description: 'Linux bridge (vmbr0) or SDN VNet the first NIC attaches to',
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
  const parsed = ferryFieldsSchema.safeParse(vm.custom_fields);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (i) => `${String(i.path[0])}: ${i.message} (got ${JSON.stringify(vm.custom_fields[String(i.path[0])])})`,
    );
    throw new NetboxError(
      `NetBox VM "${vm.name}" (id ${vm.id}) has invalid ferry custom fields: ${problems.join('; ')}`,
      'invalid',
    );
  }
  const f = parsed.data;
  const fields: FerryVmFields = {
    vmid: f.ferry_vmid ?? undefined,
    node: f.ferry_node ?? undefined,
    storage: f.ferry_storage ?? undefined,
    network: f.ferry_network ?? undefined,
    vlan: f.ferry_vlan ?? undefined,
    iso: f.ferry_iso ?? undefined,
    image: f.ferry_image ?? undefined,
    owner: f.ferry_owner ?? undefined,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as FerryVmFields;
}
