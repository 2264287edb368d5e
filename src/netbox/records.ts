import type { NetboxVmRecord, RecordDisk, RecordInterface } from '../domain/provisioning/spec';
import { normalizeMac } from './client';
import { ferryFields, interfaceFields, virtualDiskFields } from './custom-fields';
import type { VirtualDisk, VirtualMachine, VmInterface } from './schemas';

/**
 * NetBox answers as the records the domain reads (src/domain/provisioning/spec.ts): a VM with its
 * ferry custom fields, its interfaces and its virtual disks. Pure; a wrong custom field is a
 * NetboxError naming the object and the field.
 */

/** What provisioning reads of a NetBox VM. */
export function vmRecord(vm: VirtualMachine): NetboxVmRecord {
  return {
    id: vm.id,
    name: vm.name,
    status: vm.status.value,
    ...(vm.cluster?.name ? { cluster: vm.cluster.name } : {}),
    ...(typeof vm.vcpus === 'number' ? { vcpus: vm.vcpus } : {}),
    ...(typeof vm.memory === 'number' ? { memoryMB: vm.memory } : {}),
    ...(typeof vm.disk === 'number' ? { diskMB: vm.disk } : {}),
    tags: vm.tags.map((t) => t.slug),
    fields: ferryFields(vm),
    ...(typeof vm.interface_count === 'number' ? { interfaceCount: vm.interface_count } : {}),
  };
}

export function interfaceRecord(iface: VmInterface): RecordInterface {
  const mac = iface.primary_mac_address?.mac_address;
  return {
    id: iface.id,
    name: iface.name,
    enabled: iface.enabled ?? true,
    ...(typeof iface.mtu === 'number' ? { mtu: iface.mtu } : {}),
    ...(iface.mode ? { mode: iface.mode.value } : {}),
    ...(iface.untagged_vlan ? { untaggedVlan: iface.untagged_vlan.vid } : {}),
    taggedVlans: iface.tagged_vlans.map((v) => v.vid),
    ...(mac ? { mac: normalizeMac(mac) } : {}),
    ...(iface.parent ? { parentId: iface.parent.id } : {}),
    fields: interfaceFields(iface),
  };
}

export function diskRecord(disk: VirtualDisk): RecordDisk {
  return { id: disk.id, name: disk.name, sizeMB: disk.size, fields: virtualDiskFields(disk) };
}

/**
 * A VM's record with its interfaces and virtual disks, for day 2. The lists may hold other VMs' items
 * (read in pages for many VMs at once): only this VM's are taken.
 */
export function vmRecordWithHardware(
  vm: VirtualMachine,
  interfaces: readonly VmInterface[],
  disks: readonly VirtualDisk[],
): NetboxVmRecord {
  return {
    ...vmRecord(vm),
    interfaces: interfaces.filter((i) => i.virtual_machine.id === vm.id).map(interfaceRecord),
    disks: disks.filter((d) => d.virtual_machine.id === vm.id).map(diskRecord),
  };
}
